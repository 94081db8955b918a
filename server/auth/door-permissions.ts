/**
 * The one permission table of the doors: every tRPC procedure (`trpc:<path>`) and every REST
 * operation (`rest:<operationId>`) names the Action it needs (ACTIONS in permissions.ts says which
 * role that is). tRPC checks it in a middleware before input parsing, REST in apiRoute before the
 * handler, and the OpenAPI `x-minimum-role` is read from it, so the two doors cannot disagree.
 * Services check again with the workspace (defence in depth).
 *
 * `public`: no session needed (first-run set-up, accepting an invitation);
 * `signed-in`: any member (each service filters what it returns).
 * An entry point missing here is refused (fail closed); door-permissions.test.ts walks them all.
 */
import { ACTIONS, type Action, type Role } from "./permissions";

export type DoorRule = Action | "public" | "signed-in";

export const DOOR_PERMISSIONS = {
  // tRPC (the editor)
  "trpc:auth.setupOwner": "public",
  "trpc:auth.acceptInvite": "public",
  "trpc:me.get": "signed-in",
  "trpc:workspaces.list": "signed-in",
  "trpc:workspaces.get": "workspace.read",
  "trpc:workspaces.create": "workspace.create",
  "trpc:workspaces.rename": "workspace.update",
  "trpc:workspaces.delete": "workspace.delete",
  "trpc:members.list": "member.read",
  "trpc:members.invite": "member.manage",
  "trpc:members.invitations": "member.manage",
  "trpc:members.revokeInvite": "member.manage",
  "trpc:members.setRole": "member.manage",
  "trpc:members.remove": "member.manage",
  "trpc:audit.list": "audit.read",
  "trpc:apiKeys.list": "apikey.manage",
  "trpc:apiKeys.create": "apikey.manage",
  "trpc:apiKeys.revoke": "apikey.manage",
  "trpc:settings.egress": "settings.manage",
  "trpc:settings.updateEgress": "settings.manage",
  "trpc:automations.list": "automation.read",
  "trpc:automations.get": "automation.read",
  "trpc:automations.create": "automation.write",
  "trpc:automations.save": "automation.write",
  "trpc:automations.patch": "automation.write",
  "trpc:automations.delete": "automation.delete",
  "trpc:automations.duplicate": "automation.write",
  "trpc:automations.versions": "automation.read",
  "trpc:automations.version": "automation.read",
  "trpc:automations.restore": "automation.write",
  "trpc:automations.triggerInfo": "automation.read",
  "trpc:catalog.list": "workspace.read",
  "trpc:connections.list": "connection.read",
  "trpc:connections.get": "connection.read",
  "trpc:connections.create": "connection.write",
  "trpc:connections.update": "connection.write",
  "trpc:connections.delete": "connection.write",
  "trpc:connections.verify": "connection.use",
  "trpc:connections.beginOAuth": "connection.write",
  "trpc:connections.siteChoices": "connection.read",
  "trpc:connections.oauthCallbackUrl": "connection.read",
  "trpc:connections.chooseSite": "connection.write",
  "trpc:intakes.list": "intake.read",
  "trpc:intakes.createWebhook": "intake.write",
  "trpc:intakes.updateSignature": "intake.write",
  "trpc:intakes.delete": "intake.write",
  "trpc:lines.list": "line.read",
  "trpc:lines.get": "line.read",
  "trpc:lines.create": "line.write",
  "trpc:lines.update": "line.write",
  "trpc:lines.delete": "line.write",
  "trpc:resources.list": "connection.use",
  "trpc:runs.list": "run.read",
  "trpc:runs.get": "run.read",
  "trpc:runs.failedRecently": "run.read",
  "trpc:runs.start": "run.start",
  "trpc:runs.cancel": "run.cancel",
  "trpc:runs.retry": "run.start",
  "trpc:runs.test": "run.start",
  "trpc:tasks.list": "task.read",
  "trpc:tasks.get": "task.read",
  "trpc:tasks.create": "task.write",
  "trpc:tasks.patch": "task.write",
  "trpc:tasks.transition": "task.write",
  "trpc:tasks.comment": "task.write",
  "trpc:tasks.activity": "task.read",
  "trpc:usage.get": "usage.read",

  // REST (/api/v1, API keys)
  "rest:listFactories": "workspace.read",
  "rest:createFactory": "workspace.create",
  "rest:getFactory": "workspace.read",
  "rest:updateFactory": "workspace.update",
  "rest:deleteFactory": "workspace.delete",
  "rest:listLines": "line.read",
  "rest:createLine": "line.write",
  "rest:getLine": "line.read",
  "rest:updateLine": "line.write",
  "rest:deleteLine": "line.write",
  "rest:listOrders": "task.read",
  "rest:createOrder": "task.write",
  "rest:getOrder": "task.read",
  "rest:patchOrder": "task.write",
  "rest:transitionOrder": "task.write",
  "rest:commentOrder": "task.write",
  "rest:listOrderActivity": "task.read",
  "rest:listIntakes": "intake.read",
  "rest:createIntake": "intake.write",
  "rest:updateIntake": "intake.write",
  "rest:deleteIntake": "intake.write",
  "rest:getUsage": "usage.read",
  "rest:listApps": "automation.read",
  "rest:createApp": "automation.write",
  "rest:getApp": "automation.read",
  "rest:replaceApp": "automation.write",
  "rest:patchApp": "automation.write",
  "rest:deleteApp": "automation.delete",
  "rest:listVersions": "automation.read",
  "rest:getVersion": "automation.read",
  "rest:listRuns": "run.read",
  "rest:startRun": "run.start",
  "rest:getRun": "run.read",
  "rest:cancelRun": "run.cancel",
  "rest:retryRun": "run.start",
  "rest:startTestRun": "run.start",
  "rest:getRecentFailures": "run.read",
  "rest:listConnections": "connection.read",
  "rest:createConnection": "connection.write",
  "rest:getConnection": "connection.read",
  "rest:updateConnection": "connection.write",
  "rest:deleteConnection": "connection.write",
  "rest:verifyConnection": "connection.use",
  "rest:getCatalog": "workspace.read",
  "rest:getEgressPolicy": "settings.manage",
  "rest:updateEgressPolicy": "settings.manage",
  // Automations as code: the service also checks line/intake writes, and deletes with prune.
  "rest:exportFactory": "automation.read",
  "rest:importFactory": "automation.write",
} as const satisfies Record<string, DoorRule>;

export type DoorKey = keyof typeof DOOR_PERMISSIONS;

export function doorRule(key: string): DoorRule | undefined {
  return (DOOR_PERMISSIONS as Record<string, DoorRule>)[key];
}

/** The lowest role a door entry point admits (`viewer` for signed-in/public ones). */
export function minimumRole(rule: DoorRule): Role {
  return rule === "public" || rule === "signed-in" ? "viewer" : ACTIONS[rule];
}
