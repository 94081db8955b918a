/** Jira platform REST v3 module of the fake Atlassian (validated against `swagger-v3.v3.json`). */
import type { FakeModule } from "../route-kit";
import type { FakeAtlassianState } from "../state";
import { issueRoutes } from "./issues";
import { metaRoutes } from "./meta";
import { transitionRoutes } from "./transitions";
import { webhookRoutes } from "./webhooks";
import { workflowRoutes } from "./workflows";

export function jiraModule(state: FakeAtlassianState): FakeModule {
  return {
    name: "jira",
    // Specific paths before `/issue/{issueIdOrKey}` (the router takes the first match).
    routes: [...metaRoutes(state), ...webhookRoutes(state), ...workflowRoutes(state), ...transitionRoutes(state), ...issueRoutes(state)],
    spec: { file: "swagger-v3.v3.json", prefix: "/ex/jira/{cloudId}" },
  };
}
