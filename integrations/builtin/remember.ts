import { z } from "zod";
import { defineComponent } from "../core/define";
import { ui } from "../core/ui-meta";
import { parseDuration } from "./duration";

/** Where a remembered value lives (shared by core.remember and core.recall). */
export const memoryScopeField = z
  .enum(["automation", "workspace"])
  .default("automation")
  .meta(
    ui({
      title: "Shared with",
      description: "This automation only, or every automation of the workspace (e.g. one for firing alerts, another for resolved ones).",
      enumLabels: { automation: "This automation", workspace: "The whole workspace" },
      order: 3,
    }),
  );

export const memoryKeyField = z
  .string()
  .min(1, "Give a key, e.g. {{ $trigger.data.fingerprint }}")
  .max(512)
  .meta(
    ui({
      title: "Key",
      description: "What identifies the value, e.g. the alert: {{ $trigger.data.fingerprint }}-{{ $trigger.data.startsAt }}",
      placeholder: "{{ $trigger.data.fingerprint }}",
      expression: true,
      order: 1,
    }),
  );

const KEEP_MAX_MS = 366 * 86_400_000;

/** Stores a value under a key for later runs (the Jira issue created for an alert, to close it on resolve). */
export const rememberComponent = defineComponent({
  key: "core.remember",
  title: "Remember",
  description: "Store a value under a key for later runs to recall (e.g. the issue created for an alert).",
  needsConnection: false,
  config: z.object({
    key: memoryKeyField,
    value: z.unknown().meta(
      ui({
        title: "Value",
        description: "Any JSON up to 64 KiB, e.g. {{ $steps.createIssue.data.key }}",
        widget: "json",
        expression: true,
        order: 2,
      }),
    ),
    scope: memoryScopeField,
    keepFor: z
      .string()
      .default("30d")
      .refine((v) => {
        const ms = parseDuration(v);
        return ms !== null && ms > 0 && ms <= KEEP_MAX_MS;
      }, "Use a duration from 1s to 366d, such as 12h, 7d or 30d")
      .meta(ui({ title: "Keep for", description: "Then it is forgotten. Up to 366d.", placeholder: "30d", widget: "duration", order: 4 })),
  }),
  outputType: "core.remember",
  output: z.object({ key: z.string(), scope: z.enum(["automation", "workspace"]), replaced: z.boolean(), expiresAt: z.string() }),
  example: { key: "3f9c2a1b7d4e5f60-2026-01-01T00:00:00.000Z", scope: "automation", replaced: false, expiresAt: "2026-01-31T00:00:00.000Z" },
  async run(ctx) {
    const { key, value, scope, keepFor } = ctx.config;
    const r = await ctx.memory.set(key, value, { scope, keepMs: parseDuration(keepFor)! });
    return ctx.emit({ key, scope, replaced: r.replaced, expiresAt: r.expiresAt });
  },
});
