/**
 * Test helpers for integration units: `createTestContext(def, { config, connection })` parses the
 * config through the real schema and gives a real HTTP client (loopback allowed), captured logs.
 */
import type { z } from "zod";
import { createHttpClient, type HttpClient } from "./http";
import {
  envelope,
  type AnyComponent,
  type ComponentContext,
  type ConnectionHandle,
  type Envelope,
  type Logger,
  type MemoryHandle,
  type OAuthTokenSource,
  type RememberedValue,
  type RunInfo,
} from "./define";

export interface TestContextOptions {
  config: unknown;
  /** Connection settings (parsed config) or a full handle. */
  connection?: Record<string, unknown> | ConnectionHandle;
  connectionState?: Record<string, unknown>;
  oauth?: OAuthTokenSource;
  state?: unknown;
  trigger?: Envelope;
  steps?: Record<string, Envelope>;
  now?: () => Date;
  signal?: AbortSignal;
  http?: HttpClient;
  /** The step's memory (core.remember / core.recall); a fresh in-memory one when omitted. */
  memory?: MemoryHandle;
  /** Overrides of the run info (e.g. `{ attempt: 2 }` for a retry of the same step). */
  run?: Partial<RunInfo>;
}

/** An in-memory MemoryHandle for unit tests of components (the runner's is over the database). */
export function createTestMemory(now: () => Date = () => new Date()): MemoryHandle & { entries: Map<string, RememberedValue> } {
  const entries = new Map<string, RememberedValue>();
  const live = (k: string) => {
    const e = entries.get(k);
    return e && e.expiresAt > now().toISOString() ? e : undefined;
  };
  return {
    entries,
    async get(key, scope) {
      return live(`${scope}:${key}`);
    },
    async set(key, value, opts) {
      const k = `${opts.scope}:${key}`;
      const replaced = !!live(k);
      const expiresAt = new Date(now().getTime() + opts.keepMs).toISOString();
      entries.set(k, { value, storedAt: now().toISOString(), expiresAt, storedBy: { runId: "run_test", nodeId: "n_test", automationId: "aut_test" } });
      return { replaced, expiresAt };
    },
    async delete(key, scope) {
      const k = `${scope}:${key}`;
      const had = !!live(k);
      entries.delete(k);
      return had;
    },
  };
}

export interface CapturedLog {
  level: string;
  message: string;
  fields?: Record<string, unknown>;
}

export function createTestLogger(): Logger & { records: CapturedLog[] } {
  const records: CapturedLog[] = [];
  const at = (level: string) => (message: string, fields?: Record<string, unknown>) => void records.push({ level, message, fields });
  return { records, debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

function isHandle(c: unknown): c is ConnectionHandle {
  return !!c && typeof c === "object" && "config" in c && "integration" in c && "id" in c;
}

let steps = 0;

export function createTestContext<D extends AnyComponent>(
  def: D,
  options: TestContextOptions,
): ComponentContext<z.output<D["config"]>> & { logs: CapturedLog[] } {
  const config = def.config.parse(options.config);
  const now = options.now ?? (() => new Date());
  const log = createTestLogger();
  const signal = options.signal ?? new AbortController().signal;
  const connection: ConnectionHandle | undefined = options.connection
    ? isHandle(options.connection)
      ? options.connection
      : { id: "con_test", integration: def.key.split(".")[0]!, config: options.connection, state: options.connectionState ?? {}, oauth: options.oauth }
    : undefined;
  return {
    config,
    connection,
    http: options.http ?? createHttpClient({ signal }),
    log,
    logs: log.records,
    signal,
    run: {
      runId: "run_test",
      automationId: "aut_test",
      workspaceId: "wsp_test",
      nodeId: "n_test",
      nodeName: "test",
      attempt: 1,
      stepId: `stp_test${++steps}`, // each context is its own step (retries of one step pass `run.stepId`)
      ...options.run,
    },
    trigger: options.trigger ?? envelope("test.trigger", {}),
    steps: options.steps ?? {},
    state: options.state,
    memory: options.memory ?? createTestMemory(now),
    now,
    emit: (data) => envelope(def.outputType, data, now()),
    wait: (delayMs, state, reason) => ({ kind: "wait", delayMs, state, reason }),
    stop: (reason) => ({ kind: "stop", reason }),
  };
}
