/**
 * One process's view of a database outage, shared by its background loops (the runner's maintenance,
 * lease renewal and step commits, the queue's claims and sweeper). While the database cannot be
 * reached, every loop keeps retrying, and without this each one logged each failure: about a line a
 * second per loop ("maintenance failed"…). Instead the process says it once when the outage starts
 * (naming the server, never a password), reminds every `remindEveryMs` while it lasts, and says once
 * when it is reachable again and after how long. Errors that are not the database being unreachable
 * are left to the caller to log as before.
 *
 * `back()` is how a loop waits for the database: one probe (`ping`) per process, however many wait.
 */
import { isDatabaseUnavailable } from "./unavailable";

export type OutageSink = (level: "error" | "warn", msg: string, fields: Record<string, unknown>) => void;

export interface DatabaseOutage {
  /** A background loop failed with `e`: true when it is the database being unreachable (reported here), false otherwise (the caller logs it). */
  failed(source: string, e: unknown): boolean;
  /** A background loop reached the database (ends an outage, saying so once). */
  reached(): void;
  /** Resolves once the database answers (probed every `probeMs`, one probe for all waiters); rejects when `signal` aborts. */
  back(signal?: AbortSignal): Promise<void>;
  readonly down: boolean;
}

export interface OutageOptions {
  /** How the database is named in logs, e.g. `PostgreSQL at db:5432/conveyor as conveyor (DATABASE_URL)`. */
  target: string;
  ping: () => Promise<void>;
  sink?: OutageSink;
  remindEveryMs?: number;
  probeMs?: number;
  now?: () => number;
}

export const OUTAGE_REMIND_MS = 60_000;

export function createOutage(opts: OutageOptions): DatabaseOutage & { setSink(sink: OutageSink): void } {
  const now = opts.now ?? Date.now;
  const remindEveryMs = opts.remindEveryMs ?? OUTAGE_REMIND_MS;
  let sink = opts.sink;
  let since: number | undefined;
  let reminded = 0;
  let failures = 0;
  let sources = new Set<string>();
  let probe: Promise<void> | undefined;
  const seconds = (ms: number) => Math.round(ms / 100) / 10;

  const self = {
    get down() {
      return since !== undefined;
    },
    setSink(s: OutageSink) {
      sink = s;
    },
    failed(source: string, e: unknown): boolean {
      if (!isDatabaseUnavailable(e)) return false;
      const t = now();
      failures++;
      sources.add(source);
      const error = e instanceof Error ? e.message : String(e);
      if (since === undefined) {
        since = reminded = t;
        sink?.("error", `${opts.target} is unreachable; background work waits and retries until it answers`, { source, error });
      } else if (t - reminded >= remindEveryMs) {
        reminded = t;
        sink?.("warn", `${opts.target} still unreachable after ${Math.round((t - since) / 1000)} s`, { failures, sources: [...sources], error });
      }
      return true;
    },
    reached() {
      if (since === undefined) return;
      const downMs = now() - since;
      sink?.("warn", `${opts.target} reachable again after ${seconds(downMs)} s`, { downMs, failures, sources: [...sources] });
      since = undefined;
      failures = 0;
      sources = new Set();
    },
    back(signal?: AbortSignal): Promise<void> {
      probe ??= (async () => {
        try {
          for (;;) {
            try {
              await opts.ping();
              self.reached();
              return;
            } catch (e) {
              if (!self.failed("probe", e)) throw e;
            }
            await new Promise((r) => setTimeout(r, opts.probeMs ?? 500).unref());
          }
        } finally {
          probe = undefined;
        }
      })();
      if (!signal) return probe;
      if (signal.aborted) return Promise.reject(signal.reason);
      return new Promise<void>((resolve, reject) => {
        const onAbort = () => reject(signal.reason);
        signal.addEventListener("abort", onAbort, { once: true });
        probe!.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
      });
    },
  };
  return self;
}
