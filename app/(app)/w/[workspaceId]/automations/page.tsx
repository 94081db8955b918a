import type { Metadata } from "next";
import { AutomationsList } from "@/components/automations/automations-list";

export const metadata: Metadata = { title: "Automations · Conveyor" };

export default async function Page({ params }: { params: Promise<{ workspaceId: string }> }) {
  const { workspaceId } = await params;
  return <AutomationsList workspaceId={workspaceId} />;
}
