import type { Metadata } from "next";
import { Suspense } from "react";
import { ConnectionsPage } from "@/components/connections/connections-page";

export const metadata: Metadata = { title: "Connections · Conveyor" };

export default async function Page({ params }: { params: Promise<{ workspaceId: string }> }) {
  const { workspaceId } = await params;
  return (
    <Suspense>
      <ConnectionsPage workspaceId={workspaceId} />
    </Suspense>
  );
}
