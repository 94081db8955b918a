/** JSM Operations module of the fake Atlassian: register with `opsModule(state)` in server.ts. */
import { alertRoutes } from "./alerts";
import { configRoutes } from "./config-routes";
import type { FakeModule } from "../route-kit";
import { OpsState } from "./state";

export { OpsState, OpsSite } from "./state";

export function opsModule(state: OpsState): FakeModule {
  return {
    name: "jsm-ops",
    // More specific paths come first (e.g. /alerts/requests/{id} before /alerts/{id}/notes).
    routes: [...alertRoutes(state), ...configRoutes(state)],
    spec: { file: "jsm-ops.v3.json", prefix: "/jsm/ops" },
  };
}
