/**
 * The composition root between the runner and the services: the runner imports no service, and no
 * service imports the runner; this module hands the runner its hooks (secrets, connections, task
 * advance, trigger upkeep, memory). Used by the server, the worker command and tests.
 */
import type { AppDeps } from "./deps";
import type { RunnerHooks } from "./runner/hooks";
import { openNodeSecrets } from "./services/automations/node-secrets";
import { maintainTriggers } from "./services/automations/trigger-lifecycle";
import { loadConnectionHandle } from "./services/connections/load-connection";
import { openMemory } from "./services/memory/open-memory";
import { onTaskRunFinished } from "./services/tasks/run-task-step";

export function runnerHooks(deps: AppDeps): RunnerHooks {
  return {
    openSecrets: (key, config) => openNodeSecrets(deps.box, key, config),
    loadConnection: (id, workspaceId) => loadConnectionHandle(deps, id, { workspaceId }),
    taskRunFinished: (r) => onTaskRunFinished(deps, r),
    maintainTriggers: () => maintainTriggers(deps),
    openMemory: (at) => openMemory(deps, at),
  };
}
