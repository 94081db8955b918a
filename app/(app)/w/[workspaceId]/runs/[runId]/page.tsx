import type { Metadata } from "next";
import { RunView } from "@/components/runs/run-view";

export const metadata: Metadata = { title: "Run · Conveyor" };

export default async function Page({ params }: { params: Promise<{ workspaceId: string; runId: string }> }) {
  const { workspaceId, runId } = await params;
  return <RunView workspaceId={workspaceId} runId={runId} />;
}
