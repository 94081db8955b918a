/**
 * Structured JSON logs to stdout (one line per record) carrying workspace/automation/run ids.
 * Values under keys that look secret are redacted so a careless field cannot leak a token.
 */
import type { Logger } from "@/integrations/core/define";

const LEVELS = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const;
export type LogLevel = keyof typeof LEVELS;

const SECRET_KEY = /(authorization|password|secret|token|api[-_]?key|cookie|credential)/i;

export function redact(value: unknown, depth = 0): unknown {
  if (depth > 6 || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = SECRET_KEY.test(k) ? "[redacted]" : redact(v, depth + 1);
  return out;
}

export function createLogger(
  base: Record<string, unknown> = {},
  level: LogLevel = "info",
  write: (line: string) => unknown = (line: string) => process.stdout.write(line + "\n"),
): Logger & { child(fields: Record<string, unknown>): ReturnType<typeof createLogger> } {
  const min = LEVELS[level];
  const emit = (lvl: Exclude<LogLevel, "silent">, message: string, fields?: Record<string, unknown>) => {
    if (LEVELS[lvl] < min) return;
    write(JSON.stringify({ level: lvl, time: new Date().toISOString(), msg: message, ...(redact({ ...base, ...fields }) as object) }));
  };
  return {
    debug: (m, f) => emit("debug", m, f),
    info: (m, f) => emit("info", m, f),
    warn: (m, f) => emit("warn", m, f),
    error: (m, f) => emit("error", m, f),
    child: (fields) => createLogger({ ...base, ...fields }, level, write),
  };
}

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
