/**
 * Per-key fixed-window rate limit (in process; a multi-process deployment would move this to Redis).
 * Headers follow draft-ietf-httpapi-ratelimit-headers: RateLimit-Limit / -Remaining / -Reset + RateLimit-Policy.
 */
export interface RateLimitResult {
  ok: boolean;
  headers: Record<string, string>;
  retryAfterS: number;
}

export function createRateLimiter(opts: { limit: number; windowMs: number; now?: () => number }) {
  const now = opts.now ?? Date.now;
  const windows = new Map<string, { start: number; count: number }>();
  return {
    get limit() {
      return opts.limit;
    },
    take(key: string): RateLimitResult {
      const t = now();
      let w = windows.get(key);
      if (!w || t - w.start >= opts.windowMs) {
        w = { start: t - (t % opts.windowMs), count: 0 };
        windows.set(key, w);
        if (windows.size > 10_000) for (const [k, v] of windows) if (t - v.start >= opts.windowMs) windows.delete(k);
      }
      w.count++;
      const resetS = Math.max(1, Math.ceil((w.start + opts.windowMs - t) / 1000));
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
