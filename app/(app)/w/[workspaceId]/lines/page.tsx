import type { Metadata } from "next";
import { LinesPage } from "@/components/lines/lines-page";

export const metadata: Metadata = { title: "Lines · Conveyor" };

export default async function Page({ params }: { params: Promise<{ workspaceId: string }> }) {
  const { workspaceId } = await params;
  return <LinesPage workspaceId={workspaceId} />;
}
