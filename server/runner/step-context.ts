/**
 * The context a component's `run(ctx)` gets (integrations/core/define.ts ComponentContext). A class:
 * its lazy `http` and `log` are getters on the prototype. Written as getters in an object literal they
 * were defined anew for every step, which V8 does in its runtime (measured: 4 µs per getter and step,
 * the single largest item of the executor's own time).
 */
import type { StepLog } from "@/db/engine";
import { envelope, type ComponentContext, type ConnectionHandle, type Envelope, type Logger, type MemoryHandle, type RunInfo } from "@/integrations/core/define";
import { createHttpClient, type HttpClient } from "@/integrations/core/http";
import type { RunnerHooks } from "./hooks";

const MAX_LOGS = 200;

/** A step's logger: each line goes to the step's record (up to MAX_LOGS) and to the process log. */
export function stepLogger(logs: StepLog[], base: Logger, fields: Record<string, unknown>): Logger {
  const at = (level: "debug" | "info" | "warn" | "error") => (message: string, f?: Record<string, unknown>) => {
    if (logs.length < MAX_LOGS) logs.push({ at: new Date().toISOString(), level, message, ...(f ? { fields: f } : {}) });
    base[level](message, { ...fields, ...f });
  };
  return { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

const waitResult = (delayMs: number, state: unknown, reason?: string) => ({ kind: "wait" as const, delayMs, state, reason });
const stopResult = (reason?: string) => ({ kind: "stop" as const, reason });

/** Per step: where its log lines go, and how its memory is opened (a test run's is its own). */
export interface StepEnv {
  logs: StepLog[];
  base: Logger;
  workspaceId: string;
  openMemory: RunnerHooks["openMemory"];
  test: boolean;
}

export class StepContext implements ComponentContext {
  #http: HttpClient | undefined;
  #log: Logger | undefined;
  #memory: MemoryHandle | undefined;
  readonly #logTo: StepEnv;
  readonly now: () => Date;
  readonly emit: <T>(data: T) => Envelope<T>;
  readonly wait = waitResult;
  readonly stop = stopResult;

  constructor(
    readonly config: unknown,
    readonly connection: ConnectionHandle<Record<string, unknown>> | undefined,
    readonly signal: AbortSignal,
    readonly run: RunInfo,
    readonly trigger: Envelope,
    readonly steps: Record<string, Envelope>,
    readonly state: unknown,
    now: () => Date,
    outputType: string,
    /** Where the step's log lines go and its memory comes from (both made on first use). */
    logTo: StepEnv,
  ) {
    this.#logTo = logTo;
    this.now = now;
    this.emit = (data) => envelope(outputType, data, now());
  }

  /** Made on first use: most steps (filters, transforms) never call out. */
  get http(): HttpClient {
    return (this.#http ??= createHttpClient({ signal: this.signal }));
  }

  /** Made on first use: only core.remember / core.recall use it. */
  get memory(): MemoryHandle {
    const { openMemory, workspaceId, test } = this.#logTo;
    return (this.#memory ??= openMemory({ workspaceId, automationId: this.run.automationId, runId: this.run.runId, nodeId: this.run.nodeId, test }));
  }

  /** Made on first use too: most steps never log. */
  get log(): Logger {
    const { logs, base, workspaceId } = this.#logTo;
    return (this.#log ??= stepLogger(logs, base, { workspaceId, automationId: this.run.automationId, runId: this.run.runId, nodeId: this.run.nodeId }));
  }
}
