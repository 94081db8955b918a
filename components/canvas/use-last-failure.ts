"use client";
/**
 * The automation's latest production run, when it failed on a node: the editor marks that node
 * (nodes/node-failure-mark.tsx) with the error, linking to the run. Test runs (Run step, Run from here) are
 * left out: a test that fails while someone works on a node says nothing about production, and shows in
 * that node's Test tab instead. One run from the automation's index (runs.list, limit 1), refreshed like
 * the automations list (10 s).
 */
import { createContext, useMemo } from "react";
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/components/providers/trpc-provider";

export interface LastFailure {
  runId: string;
  nodeId: string;
  message: string;
  href: string;
}

export const LastFailureContext = createContext<LastFailure | null>(null);

export function useLastFailure(workspaceId: string, automationId: string): LastFailure | null {
  const trpc = useTRPC();
  const q = useQuery({ ...trpc.runs.list.queryOptions({ workspaceId, automationId, mode: "production", limit: 1 }), refetchInterval: 10_000 });
  const last = q.data?.data[0];
  const nodeId = last?.status === "failed" ? last.error?.nodeId : undefined;
  const runId = last?.id;
  const message = last?.error?.message ?? "";
  return useMemo(() => (runId && nodeId ? { runId, nodeId, message, href: `/w/${workspaceId}/runs/${runId}` } : null), [runId, nodeId, message, workspaceId]);
}
