"use client";
/**
 * The data a node's panel offers to expressions and previews: a test event (listened for on the selected
 * trigger, or chosen from its recent events) or else the latest run. Nothing here is needed to show the
 * canvas, so nothing is fetched until a node has been selected (`wanted`).
 */
import { useQuery } from "@tanstack/react-query";
import { useEffect, useMemo, useRef, useState } from "react";
import { toast } from "sonner";
import { useTRPC } from "@/components/providers/trpc-provider";
import type { SampleData } from "./config-panel/use-expression-env";
import type { TriggerEventSummary } from "./config-panel/trigger-panel";

export function useTestEvent(workspaceId: string, automationId: string, triggerNodeId: string | null, wanted: boolean) {
  const trpc = useTRPC();
  const lastRun = useLastRunSample(workspaceId, automationId, wanted);
  const [testEvent, setTestEvent] = useState<SampleData | undefined>();
  const [listening, setListening] = useState(false);
  const triggerInfo = useQuery({
    ...trpc.automations.triggerInfo.queryOptions({ workspaceId, automationId, nodeId: triggerNodeId ?? "" }),
    enabled: !!triggerNodeId,
    refetchInterval: listening ? 1500 : false,
  });
  // While listening, the first event newer than the latest one seen becomes the test event.
  const seenEvents = useRef<string | null>(null);
  useEffect(() => {
    const latest = triggerInfo.data?.events[0]?.id ?? null;
    if (!listening) {
      seenEvents.current = latest;
      return;
    }
    if (latest && latest !== seenEvents.current) {
      const ev = triggerInfo.data!.events[0];
      setTestEvent({ trigger: ev.envelope, steps: {}, source: "test event" });
      setListening(false);
      toast.success("Test event received: its fields are now offered in expressions.");
    }
  }, [triggerInfo.data, listening]);

  return {
    /** The test event when there is one, else the latest run. */
    sample: testEvent ?? lastRun,
    lastRun,
    triggerInfo: triggerInfo.data ?? null,
    listening,
    setListening,
    chooseEvent: (e: TriggerEventSummary) => setTestEvent({ trigger: e.envelope, steps: {}, source: "chosen event" }),
  };
}

/** The latest run's envelopes (trigger + steps by name), offered to autocomplete and previews. */
function useLastRunSample(workspaceId: string, automationId: string, wanted: boolean): SampleData | undefined {
  const trpc = useTRPC();
  const list = useQuery({ ...trpc.runs.list.queryOptions({ workspaceId, automationId, limit: 1 }), enabled: wanted });
  const runId = list.data?.data[0]?.id;
  const detail = useQuery({ ...trpc.runs.get.queryOptions({ workspaceId, runId: runId ?? "" }), enabled: wanted && !!runId });
  return useMemo(() => {
    const d = detail.data;
    if (!d) return undefined;
    const steps: Record<string, unknown> = {};
    for (const s of d.steps) if (s.output) steps[s.name] = s.output;
    return { trigger: d.event ?? undefined, steps, source: "last run", runId: d.id };
  }, [detail.data]);
}
