import type { Metadata } from "next";
import { IntakesPage } from "@/components/intakes/intakes-page";

export const metadata: Metadata = { title: "Intakes · Conveyor" };

export default async function Page({ params }: { params: Promise<{ workspaceId: string }> }) {
  const { workspaceId } = await params;
  return <IntakesPage workspaceId={workspaceId} />;
}
