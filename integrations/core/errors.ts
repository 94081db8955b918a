/**
 * Error classes thrown by components, triggers and the shared HTTP client.
 * The runner classifies failures only by these classes: retryable errors are retried with
 * backoff (honouring `retryAfterMs`), everything else fails the step at once.
 */

/** A failure that retrying cannot fix (4xx, validation, upstream rules such as "subtasks exist"). */
export class NonRetryableError extends Error {
  readonly retryable = false as const;
  constructor(
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = "NonRetryableError";
  }
}

/** A transient failure (network, timeout, 408/429/5xx) that the runner retries with backoff. */
export class RetryableError extends Error {
  readonly retryable = true as const;
  constructor(
    message: string,
    readonly retryAfterMs?: number,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = "RetryableError";
  }
}

/** Raised by the HTTP client for a non-2xx response; `retryable` follows the status. */
export class IntegrationHttpError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly retryable: boolean,
    readonly body: unknown,
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = "IntegrationHttpError";
  }
}

/** Thrown by a trigger's `verify` when a delivery is not authentic: answered 401, nothing stored. */
export class DeliveryUnauthorizedError extends Error {
  constructor(message = "Delivery is not authenticated") {
    super(message);
    this.name = "DeliveryUnauthorizedError";
  }
}

/** Thrown by a trigger's `match` for a delivery it cannot understand: answered 400 or 422. */
export class DeliveryRejectedError extends Error {
  constructor(
    message: string,
    readonly status: 400 | 422 = 422,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = "DeliveryRejectedError";
  }
}

/** A connection that can no longer authenticate (refresh refused): shown as "needs reconnect". */
export class ConnectionAuthError extends NonRetryableError {
  constructor(message: string) {
    super(message);
    this.name = "ConnectionAuthError";
  }
}

export function isRetryable(error: unknown): boolean {
  if (error instanceof RetryableError) return true;
  if (error instanceof IntegrationHttpError) return error.retryable;
  if (error instanceof NonRetryableError) return false;
  // Unknown errors (bugs, unexpected throws) are not retried: retrying a bug hides it.
  return false;
}

export function retryAfterOf(error: unknown): number | undefined {
  if (error instanceof RetryableError || error instanceof IntegrationHttpError) return error.retryAfterMs;
  return undefined;
}
