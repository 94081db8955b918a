import type { Metadata } from "next";
import { ApiKeysPage } from "@/components/api-keys/api-keys-page";

export const metadata: Metadata = { title: "API keys · Conveyor" };

export default async function Page({ params }: { params: Promise<{ workspaceId: string }> }) {
  const { workspaceId } = await params;
  return <ApiKeysPage workspaceId={workspaceId} />;
}
