/**
 * What this process is (web, ingress, worker, or a one-shot CLI command) and, when it runs one, its
 * runner. Set once by the entry point (server/main.ts, server/cli/commands.ts) before the deps are
 * built; read by the deps (PostgreSQL timeouts per role), readiness and /metrics. Kept on globalThis:
 * the custom server (tsx) and Next's bundle both import this module.
 */
export type ProcessRoleName = "web" | "ingress" | "worker" | "cli";

export interface ProcessRole {
  role: ProcessRoleName;
  /** The runner of this process (web with CONVEYOR_RUNNER=1, worker). */
  runner?: { healthy(): boolean };
}

const KEY = Symbol.for("conveyor.process-role");
type G = typeof globalThis & { [KEY]?: ProcessRole };

export function setProcessRole(role: ProcessRoleName): void {
  (globalThis as G)[KEY] = { ...(globalThis as G)[KEY], role };
}

export function setProcessRunner(runner: ProcessRole["runner"]): void {
  (globalThis as G)[KEY] = { role: processRole().role, runner };
}

/** Defaults to `cli` (tests, scripts) until an entry point says otherwise. */
export function processRole(): ProcessRole {
  return (globalThis as G)[KEY] ?? { role: "cli" };
}
