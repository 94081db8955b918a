import type { Metadata } from "next";
import { dehydrate, HydrationBoundary, QueryClient } from "@tanstack/react-query";
import { createTRPCOptionsProxy } from "@trpc/tanstack-react-query";
import { CanvasEditorEntry } from "@/components/canvas/canvas-editor-entry";
import { appRouter } from "@/server/trpc/root";
import { getDeps } from "@/server/deps";
import { getSessionActor } from "@/server/auth/session";
import { withPageErrors } from "@/server/http/page-errors";

export const metadata: Metadata = { title: "Editor · Conveyor" };

/**
 * Prefetches the catalog, the automation, the connections and the user's permissions on the server so the
 * editor renders without a client round trip (and its menus never offer or refuse actions before the role is known).
 */
export default withPageErrors(async function Page({ params }: { params: Promise<{ workspaceId: string; automationId: string }> }) {
  const { workspaceId, automationId } = await params;
  const queryClient = new QueryClient({ defaultOptions: { queries: { staleTime: 5_000 } } });
  const actor = await getSessionActor();
  if (actor) {
    const trpc = createTRPCOptionsProxy({ router: appRouter, ctx: { deps: await getDeps(), actor }, queryClient });
    // Failures (e.g. not found) are left to the client, which shows them.
    await Promise.all([
      queryClient.prefetchQuery(trpc.catalog.list.queryOptions({ workspaceId })),
      queryClient.prefetchQuery(trpc.automations.get.queryOptions({ workspaceId, automationId })),
      queryClient.prefetchQuery(trpc.connections.list.queryOptions({ workspaceId })),
      queryClient.prefetchQuery(trpc.me.get.queryOptions()),
    ]);
  }
  return (
    <HydrationBoundary state={dehydrate(queryClient)}>
      <CanvasEditorEntry workspaceId={workspaceId} automationId={automationId} />
    </HydrationBoundary>
  );
});
