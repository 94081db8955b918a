/** Small helpers shared by the metrics tests. */
import type { AnyComponent, ComponentResult, Envelope } from "../../core/define";
import { createHttpClient } from "../../core/http";
import { createTestContext } from "../../core/testing";
import type { MetricsConnection } from "../connection";

export async function runComponent<T = Record<string, unknown>>(
  def: AnyComponent,
  config: unknown,
  connection: MetricsConnection,
  opts: { timeoutMs?: number; trigger?: Envelope; now?: () => Date } = {},
): Promise<Envelope<T> & { logs: unknown[] }> {
  const ctx = createTestContext(def, {
    config,
    connection: connection as unknown as Record<string, unknown>,
    http: opts.timeoutMs ? createHttpClient({ timeoutMs: opts.timeoutMs }) : undefined,
    trigger: opts.trigger,
    now: opts.now,
  });
  const result = (await def.run(ctx)) as ComponentResult;
  if (!("type" in result)) throw new Error(`component returned ${result.kind} instead of an event`);
  return { ...(result as Envelope<T>), logs: ctx.logs };
}

/** Runs and returns the thrown error (fails the test when nothing is thrown). */
export async function runError(def: AnyComponent, config: unknown, connection: MetricsConnection, opts: { timeoutMs?: number } = {}): Promise<Error> {
  try {
    await runComponent(def, config, connection, opts);
  } catch (e) {
    return e as Error;
  }
  throw new Error(`${def.key} did not fail`);
}

export async function pollUntil<T>(fn: () => Promise<T | undefined>, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
