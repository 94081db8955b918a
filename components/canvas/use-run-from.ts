"use client";
/** "Run from here" (node menu, Test tab): a test run of the saved version from a node on, then its run view. */
import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useCallback } from "react";
import { toast } from "sonner";
import { useTRPC } from "@/components/providers/trpc-provider";

export function useRunFrom(workspaceId: string, automationId: string, ensureSaved: () => Promise<boolean>): (nodeId: string) => Promise<void> {
  const trpc = useTRPC();
  const router = useRouter();
  const test = useMutation(trpc.runs.test.mutationOptions());
  const { mutateAsync } = test;
  return useCallback(
    async (nodeId: string) => {
      if (!(await ensureSaved())) {
        toast.error("Save your changes first: test runs use the saved version.");
        return;
      }
      try {
        const r = await mutateAsync({ workspaceId, automationId, nodeId, scope: "downstream" });
        toast.success(`Test run started (data before it from ${r.dataFrom}).`);
        router.push(`/w/${workspaceId}/runs/${r.id}`);
      } catch (e) {
        toast.error((e as Error).message);
      }
    },
    [ensureSaved, mutateAsync, workspaceId, automationId, router],
  );
}
