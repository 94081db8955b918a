import type { Metadata } from "next";
import { UsagePage } from "@/components/usage/usage-page";

export const metadata: Metadata = { title: "Usage · Conveyor" };

export default async function Page({ params }: { params: Promise<{ workspaceId: string }> }) {
  const { workspaceId } = await params;
  return <UsagePage workspaceId={workspaceId} />;
}
