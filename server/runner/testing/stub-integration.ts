/** Stub components for runner tests (registered with registerTestIntegration; never in the real registry). */
import fs from "node:fs";
import { z } from "zod";
import { defineComponent, defineIntegration, type AnyIntegration } from "@/integrations/core/define";
import { NonRetryableError, RetryableError } from "@/integrations/core/errors";
import { registerTestIntegration } from "@/integrations/registry";
import { ui } from "@/integrations/core/ui-meta";

const echo = defineComponent({
  key: "stub.echo",
  title: "Echo",
  description: "Emits its config.",
  needsConnection: false,
  config: z.object({
    value: z.unknown(),
    secret: z
      .string()
      .optional()
      .meta(ui({ sensitive: true })),
  }),
  outputType: "stub.echo",
  output: z.object({ value: z.unknown() }),
  example: { value: 1 },
  async run(ctx) {
    ctx.log.info("echo", { n: 1 });
    return ctx.emit({ value: ctx.config.value });
  },
});

const fetchJson = defineComponent({
  key: "stub.fetch",
  title: "Fetch",
  description: "GETs a URL with the shared client.",
  needsConnection: false,
  retry: { maxAttempts: 5 },
  config: z.object({ url: z.string(), timeoutMs: z.number().default(2000) }),
  outputType: "stub.fetch",
  output: z.object({ body: z.unknown() }),
  example: { body: {} },
  async run(ctx) {
    const res = await ctx.http.get(ctx.config.url, undefined, { timeoutMs: ctx.config.timeoutMs });
    return ctx.emit({ body: res.body });
  },
});

/** Appends "<pid> <stepId> <runId> <node>" to a file when it finishes, after sleeping (and to `<file>.started` when it starts). */
const mark = defineComponent({
  key: "stub.mark",
  title: "Mark",
  description: "Records that it ran.",
  needsConnection: false,
  config: z.object({ file: z.string(), sleepMs: z.number().default(0) }),
  outputType: "stub.mark",
  output: z.object({ ok: z.boolean() }),
  example: { ok: true },
  async run(ctx) {
    fs.appendFileSync(`${ctx.config.file}.started`, `${process.pid} ${ctx.run.stepId} ${ctx.run.runId} ${ctx.run.nodeName}\n`);
    if (ctx.config.sleepMs) await new Promise((r) => setTimeout(r, ctx.config.sleepMs));
    fs.appendFileSync(ctx.config.file, `${process.pid} ${ctx.run.stepId} ${ctx.run.runId} ${ctx.run.nodeName}\n`);
    return ctx.emit({ ok: true });
  },
});

const fail = defineComponent({
  key: "stub.fail",
  title: "Fail",
  description: "Fails (permanently, or with a retryable error when `retryable`) unless told otherwise by a file.",
  needsConnection: false,
  config: z.object({ unlessFile: z.string().optional(), message: z.string().default("boom"), retryable: z.boolean().optional() }),
  outputType: "stub.fail",
  output: z.object({ ok: z.boolean() }),
  example: { ok: true },
  async run(ctx) {
    if (ctx.config.unlessFile && fs.existsSync(ctx.config.unlessFile)) return ctx.emit({ ok: true });
    if (ctx.config.retryable) throw new RetryableError(ctx.config.message);
    throw new NonRetryableError(ctx.config.message);
  },
});

const big = defineComponent({
  key: "stub.big",
  title: "Big",
  description: "Emits a large payload.",
  needsConnection: false,
  config: z.object({ bytes: z.number() }),
  outputType: "stub.big",
  output: z.object({ blob: z.string() }),
  example: { blob: "x" },
  async run(ctx) {
    return ctx.emit({ blob: "x".repeat(ctx.config.bytes) });
  },
});

/** Kills its own process (SIGKILL) mid-step, after recording that it ran: a process death in flight. */
const crash = defineComponent({
  key: "stub.crash",
  title: "Crash",
  description: "Kills the process running it, unless a file exists.",
  needsConnection: false,
  config: z.object({ file: z.string(), unlessFile: z.string().optional() }),
  outputType: "stub.crash",
  output: z.object({ ok: z.boolean() }),
  example: { ok: true },
  async run(ctx) {
    fs.appendFileSync(ctx.config.file, `${process.pid} ${ctx.run.stepId} ${ctx.run.runId} ${ctx.run.nodeName}\n`);
    if (ctx.config.unlessFile && fs.existsSync(ctx.config.unlessFile)) return ctx.emit({ ok: true });
    process.kill(process.pid, "SIGKILL");
    return new Promise<never>(() => undefined);
  },
});

export const stubIntegration = defineIntegration({
  key: "stub",
  title: "Stub",
  description: "Runner test components",
  icon: "flask",
  components: [echo, fetchJson, mark, fail, big, crash],
  triggers: [],
}) as AnyIntegration;

export function registerStubs(): void {
  registerTestIntegration(stubIntegration);
}
