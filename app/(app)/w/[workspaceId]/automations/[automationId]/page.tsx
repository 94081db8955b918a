import type { Metadata } from "next";
import { CanvasEditor } from "@/components/canvas/canvas-editor";

export const metadata: Metadata = { title: "Editor · Conveyor" };

export default async function Page({ params }: { params: Promise<{ workspaceId: string; automationId: string }> }) {
  const { workspaceId, automationId } = await params;
  return <CanvasEditor workspaceId={workspaceId} automationId={automationId} />;
}
