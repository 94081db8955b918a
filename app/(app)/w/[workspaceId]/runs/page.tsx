import type { Metadata } from "next";
import { Suspense } from "react";
import { RunList } from "@/components/runs/run-list";

export const metadata: Metadata = { title: "Runs · Conveyor" };

export default async function Page({ params }: { params: Promise<{ workspaceId: string }> }) {
  const { workspaceId } = await params;
  return (
    <Suspense>
      <RunList workspaceId={workspaceId} />
    </Suspense>
  );
}
