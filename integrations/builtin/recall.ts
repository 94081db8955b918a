import { z } from "zod";
import { defineComponent, type RememberedValue } from "../core/define";
import { ui } from "../core/ui-meta";
import { parseDuration } from "./duration";
import { memoryKeyField, memoryScopeField } from "./remember";

/** How often a recall waiting for its value looks again: 5 s, then longer, at most 30 s. */
const pollMs = (polls: number) => Math.min(30_000, 5_000 * 2 ** Math.min(polls, 3));

type State = { since: number; polls: number } | { found: RememberedValue };

/** Reads what an earlier run remembered (core.remember), e.g. the issue to close when an alert resolves. */
export const recallComponent = defineComponent({
  key: "core.recall",
  title: "Recall",
  description: "Read a value an earlier run remembered under a key; stop, wait, fail or go on when there is none.",
  needsConnection: false,
  config: z.object({
    key: memoryKeyField,
    scope: memoryScopeField,
    ifMissing: z
      .enum(["stop", "wait", "fail", "continue"])
      .default("stop")
      .meta(
        ui({
          title: "When nothing is remembered",
          enumLabels: {
            stop: "End this branch (not a failure)",
            wait: "Wait for it, then end the branch",
            fail: "Fail the step",
            continue: "Go on with found = false",
          },
          order: 4,
        }),
      ),
    waitUpTo: z
      .string()
      .default("10m")
      .refine((v) => {
        const ms = parseDuration(v);
        return ms !== null && ms > 0 && ms <= 7 * 86_400_000;
      }, "Use a duration from 1s to 7d, such as 30s, 10m or 1h")
      .meta(
        ui({
          title: "Wait up to",
          description: "For a value another run is about to remember (a resolve that arrives before its firing run finished).",
          widget: "duration",
          placeholder: "10m",
          visibleWhen: { field: "ifMissing", equals: "wait" },
          order: 5,
        }),
      ),
    forget: z
      .boolean()
      .default(false)
      .meta(ui({ title: "Forget it after reading", description: "The next recall of this key finds nothing.", order: 6 })),
  }),
  outputType: "core.recall",
  output: z.object({
    key: z.string(),
    scope: z.enum(["automation", "workspace"]),
    found: z.boolean(),
    value: z.unknown(),
    storedAt: z.string().nullable(),
    expiresAt: z.string().nullable(),
    storedBy: z.object({ runId: z.string(), nodeId: z.string(), automationId: z.string() }).nullable(),
  }),
  example: {
    key: "3f9c2a1b7d4e5f60-2026-01-01T00:00:00.000Z",
    scope: "automation",
    found: true,
    value: "OPS-42",
    storedAt: "2026-01-01T00:00:05.000Z",
    expiresAt: "2026-01-31T00:00:05.000Z",
    storedBy: { runId: "run_…", nodeId: "n4", automationId: "aut_…" },
  },
  async run(ctx) {
    const { key, scope, ifMissing, waitUpTo, forget } = ctx.config;
    const emitFound = (e: RememberedValue) =>
      ctx.emit({ key, scope, found: true, value: e.value, storedAt: e.storedAt, expiresAt: e.expiresAt, storedBy: e.storedBy });
    const state = ctx.state as State | undefined;
    if (state && "found" in state) {
      // Read before, kept in this step's committed state: forgetting now cannot lose it, even if the
      // step is retried after the delete.
      await ctx.memory.delete(key, scope);
      return emitFound(state.found);
    }
    const entry = await ctx.memory.get(key, scope);
    if (entry) {
      if (forget) return ctx.wait(0, { found: entry } satisfies State, "forgetting the value it read");
      return emitFound(entry);
    }
    const now = ctx.now().getTime();
    switch (ifMissing) {
      case "continue":
        return ctx.emit({ key, scope, found: false, value: null, storedAt: null, expiresAt: null, storedBy: null });
      case "fail":
        throw Object.assign(new Error(`nothing is remembered under "${key}" (${scope === "workspace" ? "workspace" : "this automation"})`), {
          permanent: true,
        });
      case "wait": {
        const since = state && "since" in state ? state.since : now;
        const polls = state && "polls" in state ? state.polls : 0;
        const left = since + parseDuration(waitUpTo)! - now;
        if (left <= 0) return ctx.stop(`nothing was remembered under "${key}" within ${waitUpTo}`);
        return ctx.wait(Math.min(left, pollMs(polls)), { since, polls: polls + 1 } satisfies State, `waiting for a value under "${key}"`);
      }
      default:
        return ctx.stop(`nothing is remembered under "${key}"`);
    }
  },
});
