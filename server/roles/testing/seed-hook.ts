/** An enabled automation "webhook → filter" (builtin components only, so real worker processes can run it); returns its hook path. */
import type { AppDeps } from "../../deps";
import { createAutomation } from "../../services/automations";
import { seedWorkspace } from "../../runner/testing/seed";

export async function seedHookAutomation(deps: AppDeps): Promise<{ hookPath: string; workspaceId: string; automationId: string }> {
  const ws = await seedWorkspace(deps);
  const a = await createAutomation(deps, ws.actor, ws.workspaceId, {
    name: "roles",
    enabled: true,
    concurrency: 100,
    graph: {
      nodes: [
        { id: "t", name: "hook", key: "core.webhook", config: {} },
        { id: "f", name: "check", key: "core.filter", config: { condition: "{{ $trigger.data.body.ok }}" } },
      ],
      edges: [{ from: "t", to: "f" }],
    },
  });
  const url = a.triggers[0]!.url!;
  return { hookPath: new URL(url).pathname, workspaceId: ws.workspaceId, automationId: a.id };
}
