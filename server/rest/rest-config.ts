/** REST limits from env (CONVEYOR_API_MAX_BYTES, CONVEYOR_API_RATE_LIMIT per key per minute); tests override. */
import { env } from "../env";

export interface RestConfig {
  maxBodyBytes: number;
  rateLimit: number;
  rateWindowMs: number;
}

let override: Partial<RestConfig> = {};

export function restConfig(): RestConfig {
  return { maxBodyBytes: env.CONVEYOR_API_MAX_BYTES, rateLimit: env.CONVEYOR_API_RATE_LIMIT, rateWindowMs: 60_000, ...override };
}

export function setRestConfig(c: Partial<RestConfig>): void {
  override = { ...c };
}
