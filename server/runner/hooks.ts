/**
 * What the runner needs from the rest of the service, passed in at start (the runner imports no
 * service; the composition root `server/runner-hooks.ts` wires these to the services).
 */
import type { ConnectionHandle, MemoryHandle } from "@/integrations/core/define";
import type { FinalStatus, RunError } from "@/db/engine";

export interface RunnerHooks {
  /** Decrypts the secret fields of a node's stored config. */
  openSecrets(key: string, config: Record<string, unknown>): Record<string, unknown>;
  /** A decrypted, ready connection for a node; only one of the run's workspace. */
  loadConnection(connectionId: string, workspaceId: string): Promise<ConnectionHandle>;
  /** A run of a task step ended: advance or close the task. Called at least once; must be idempotent. */
  taskRunFinished(r: { runId: string; taskId: string; taskStep: number; status: FinalStatus; error: RunError | null }): Promise<void>;
  /** Periodic trigger upkeep (upstream registrations that expire). */
  maintainTriggers(): Promise<void>;
  /** What a step remembers between runs (core.remember / core.recall); test runs get their own memory. */
  openMemory(at: { workspaceId: string; automationId: string; runId: string; nodeId: string; test: boolean }): MemoryHandle;
}
