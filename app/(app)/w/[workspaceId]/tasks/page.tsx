import type { Metadata } from "next";
import { TasksBoard } from "@/components/tasks/tasks-board";

export const metadata: Metadata = { title: "Tasks · Conveyor" };

export default async function Page({ params }: { params: Promise<{ workspaceId: string }> }) {
  const { workspaceId } = await params;
  return <TasksBoard workspaceId={workspaceId} />;
}
