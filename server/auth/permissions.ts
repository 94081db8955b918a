/**
 * Who may do what. One table, used by every service (tRPC, REST and CLI doors alike).
 *
 * viewer   reads everything in its workspaces
 * operator + runs automations by hand, cancels/retries runs, manages tasks
 * editor   + edits automations, lines and intakes
 * admin    + workspaces, members, API keys, connections, audit log
 * owner    + everything (one per organization, created on first visit)
 */
import { AppError } from "../errors";

export const ROLES = ["viewer", "operator", "editor", "admin", "owner"] as const;
export type Role = (typeof ROLES)[number];
export type ApiKeyRole = Exclude<Role, "owner">;

export const ACTIONS = {
  "workspace.read": "viewer",
  "workspace.create": "admin",
  "workspace.update": "admin",
  "workspace.delete": "admin",
  "automation.read": "viewer",
  "automation.write": "editor",
  "automation.delete": "editor",
  "run.read": "viewer",
  "run.start": "operator",
  "run.cancel": "operator",
  "task.read": "viewer",
  "task.write": "operator",
  "line.read": "viewer",
  "line.write": "editor",
  "intake.read": "viewer",
  "intake.write": "editor",
  "usage.read": "viewer",
  "connection.read": "viewer",
  "connection.write": "admin",
  "connection.use": "editor",
  "member.read": "viewer",
  "member.manage": "admin",
  "apikey.manage": "admin",
  "audit.read": "admin",
  "settings.manage": "admin",
  "owner.transfer": "owner",
} as const satisfies Record<string, Role>;

export type Action = keyof typeof ACTIONS;

export function roleRank(role: Role): number {
  return ROLES.indexOf(role);
}

export function can(role: Role, action: Action): boolean {
  return roleRank(role) >= roleRank(ACTIONS[action]);
}

/** The caller of a service: a signed-in user, an API key, or the system (runner, CLI). */
export type Actor =
  | { kind: "user"; userId: string; organizationId: string; role: Role; label: string }
  | { kind: "apiKey"; keyId: string; organizationId: string; role: ApiKeyRole; workspaceIds: string[] | null; label: string }
  | { kind: "system"; organizationId?: string; label: string };

export function actorLabel(actor: Actor): string {
  return actor.label;
}

/** Throws 403 unless the actor's role allows `action`. */
export function assertCan(actor: Actor, action: Action): void {
  if (actor.kind === "system") return;
  if (!can(actor.role, action)) {
    throw new AppError("forbidden", `Your role (${actor.role}) does not allow ${action}; it needs ${ACTIONS[action]} or higher.`);
  }
}

/** Installation-wide changes (new workspaces, settings) are refused to API keys limited to some workspaces. */
export function assertOrganizationWide(actor: Actor, what: string): void {
  if (actor.kind === "apiKey" && actor.workspaceIds) {
    throw new AppError(
      "forbidden",
      `This key is limited to ${actor.workspaceIds.length === 1 ? "one workspace" : "some workspaces"}; it cannot ${what}. Use a key without a workspace list.`,
    );
  }
}

/** Whether the actor may see the workspace at all (API keys may be limited to a list). */
export function canSeeWorkspace(actor: Actor, workspaceId: string): boolean {
  if (actor.kind === "apiKey" && actor.workspaceIds) return actor.workspaceIds.includes(workspaceId);
  return true;
}
