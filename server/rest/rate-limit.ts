/**
 * Per-key fixed-window rate limit. Headers follow draft-ietf-httpapi-ratelimit-headers:
 * RateLimit-Limit / -Remaining / -Reset + RateLimit-Policy.
 *
 * Where the windows are counted:
 * - embedded mode (SQLite): in process memory. One web process serves the API, so memory is
 *   exact, and a write per request on the single-writer database would cost every request the
 *   write lock (and could stall the event loop while a worker process holds it).
 * - scale-out mode (PostgreSQL): in the database (`store.rateLimits.hit`, one atomic upsert per
 *   request), so the limit is per key across every web process, not per process.
 */
import type { Store } from "@/db/store";

export interface RateLimitResult {
  ok: boolean;
  headers: Record<string, string>;
  retryAfterS: number;
}

/** Counts a hit in the window starting at `windowStart` and returns that window's count and start. */
export interface WindowCounter {
  hit(key: string, windowStart: number): Promise<{ count: number; windowStart: number }>;
}

export function memoryWindowCounter(): WindowCounter {
  const windows = new Map<string, { start: number; count: number }>();
  return {
    async hit(key, windowStart) {
      let w = windows.get(key);
      if (!w || windowStart > w.start) {
        w = { start: windowStart, count: 0 };
        windows.set(key, w);
        if (windows.size > 10_000) for (const [k, v] of windows) if (v.start < windowStart) windows.delete(k);
      }
      w.count++;
      return { count: w.count, windowStart: w.start };
    },
  };
}

/** Windows shared by every process using this store. */
export function storeWindowCounter(store: Store): WindowCounter {
  return { hit: (key, windowStart) => store.rateLimits.hit(`api-key:${key}`, windowStart) };
}

export function createRateLimiter(opts: { limit: number; windowMs: number; now?: () => number; counter?: WindowCounter }) {
  const now = opts.now ?? Date.now;
  const counter = opts.counter ?? memoryWindowCounter();
  return {
    get limit() {
      return opts.limit;
    },
    async take(key: string): Promise<RateLimitResult> {
      const t = now();
      const w = await counter.hit(key, t - (t % opts.windowMs));
      const resetS = Math.max(1, Math.ceil((w.windowStart + opts.windowMs - t) / 1000));
      const remaining = Math.max(0, opts.limit - w.count);
      const headers = {
        "RateLimit-Limit": String(opts.limit),
        "RateLimit-Remaining": String(remaining),
        "RateLimit-Reset": String(resetS),
        "RateLimit-Policy": `${opts.limit};w=${Math.round(opts.windowMs / 1000)}`,
      };
      return { ok: w.count <= opts.limit, headers, retryAfterS: resetS };
    },
  };
}
