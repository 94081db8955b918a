/** Exponential backoff with jitter; `Retry-After` from the upstream wins when given. */
export interface RetryOptions {
  maxAttempts: number;
  baseMs: number;
  maxMs: number;
}

export const DEFAULT_RETRY: RetryOptions = { maxAttempts: 5, baseMs: 1000, maxMs: 5 * 60_000 };

export function retryDelayMs(attempt: number, opts: RetryOptions, retryAfterMs?: number, random = Math.random): number {
  if (retryAfterMs !== undefined) return Math.min(Math.max(retryAfterMs, 0), 60 * 60_000);
  const exp = Math.min(opts.maxMs, opts.baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(exp / 2 + random() * (exp / 2));
}
