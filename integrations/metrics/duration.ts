/**
 * Prometheus-style durations (`1h`, `30m`, `2h30m`, `1d12h`, `500ms`) and query times
 * (RFC 3339, Unix seconds, or `now` / `now-1h` relative to the run's clock).
 */
import { z } from "zod";

const UNIT_MS: Record<string, number> = { y: 365 * 86_400_000, w: 7 * 86_400_000, d: 86_400_000, h: 3_600_000, m: 60_000, s: 1000, ms: 1 };
const DURATION_RE = /^(?:(\d+)y)?(?:(\d+)w)?(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?(?:(\d+)ms)?$/;
const UNITS = ["y", "w", "d", "h", "m", "s", "ms"] as const;

/** Milliseconds of a duration string, or null when it is not a valid, positive Prometheus duration. */
export function parseDuration(text: string): number | null {
  const s = text.trim();
  if (!s) return null;
  const m = DURATION_RE.exec(s);
  if (!m) return null;
  let total = 0;
  UNITS.forEach((unit, i) => {
    if (m[i + 1]) total += Number(m[i + 1]) * UNIT_MS[unit];
  });
  return total > 0 ? total : null;
}

export const DurationSchema = z
  .string()
  .trim()
  .refine((s) => parseDuration(s) !== null, { message: "Use a duration like 1h, 30m or 2h30m" });

/** A query step: a duration (`15s`, `1m`) or a positive number of seconds (`15`, `0.5`). Returns seconds. */
export function parseStep(text: string): number | null {
  const s = text.trim();
  if (/^\d+(\.\d+)?$/.test(s)) return Number(s) > 0 ? Number(s) : null;
  const ms = parseDuration(s);
  return ms === null ? null : ms / 1000;
}

/** `<field> is required (<hint>)` when the value is missing altogether, zod's own message otherwise. */
export const requiredError = (field: string, hint: string) => (iss: { input?: unknown }) =>
  iss.input === undefined ? `${field} is required (${hint})` : undefined;

const STEP_HINT = "a step like 15s or 1m (or a number of seconds)";
const TIME_HINT = "RFC 3339 (2024-05-01T10:00:00Z), Unix seconds (1714557600), now or now-1h";

/** A required query step (`field` names it in the message when it is missing). */
export const stepSchema = (field = "Step") =>
  z
    .string({ error: requiredError(field, STEP_HINT) })
    .trim()
    .refine((s) => parseStep(s) !== null, { message: `Use ${STEP_HINT}` });
export const StepSchema = stepSchema();

/**
 * A query time: RFC 3339 (`2024-05-01T10:00:00Z`), Unix seconds (`1714557600` or `1714557600.5`),
 * `now`, or `now-<duration>` / `now+<duration>`. Returns Unix seconds, or null when unreadable.
 */
export function parseQueryTime(value: string | number, now: Date): number | null {
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  const s = value.trim();
  if (/^-?\d+(\.\d+)?$/.test(s)) return Number(s);
  const rel = /^now(?:\s*([+-])\s*(\S+))?$/i.exec(s);
  if (rel) {
    if (!rel[1]) return now.getTime() / 1000;
    const ms = parseDuration(rel[2]);
    if (ms === null) return null;
    return (now.getTime() + (rel[1] === "-" ? -ms : ms)) / 1000;
  }
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i.test(s)) return null;
  const t = Date.parse(s);
  return Number.isNaN(t) ? null : t / 1000;
}

/** A required query time (`field` names it in the message when it is missing). */
export const queryTimeSchema = (field = "Time") =>
  z
    .union([z.string().trim(), z.number()], { error: requiredError(field, TIME_HINT) })
    .refine((v) => parseQueryTime(v, new Date()) !== null, { message: `Use ${TIME_HINT}` });
export const QueryTimeSchema = queryTimeSchema();

/** `2h30m` style rendering of seconds (for messages). */
export function formatSeconds(seconds: number): string {
  let rest = Math.ceil(seconds);
  const parts: string[] = [];
  for (const [unit, size] of [
    ["d", 86400],
    ["h", 3600],
    ["m", 60],
    ["s", 1],
  ] as const) {
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)}${unit}`);
      rest %= size;
    }
  }
  return parts.join("") || "1s";
}
