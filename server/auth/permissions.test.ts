import { describe, expect, it } from "vitest";
import { ACTIONS, ROLES, assertCan, can, type Action, type Role } from "./permissions";

// The expected matrix written out independently of the ACTIONS table: a change to who may do
// what must be made in both places, deliberately.
const MIN_ROLE: Record<Action, Role> = {
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
};

describe("role permissions", () => {
  it("covers every action", () => {
    expect(Object.keys(ACTIONS).sort()).toEqual(Object.keys(MIN_ROLE).sort());
  });
  for (const action of Object.keys(MIN_ROLE) as Action[]) {
    for (const role of ROLES) {
      const allowed = ROLES.indexOf(role) >= ROLES.indexOf(MIN_ROLE[action]);
      it(`${role} ${allowed ? "may" : "may not"} ${action}`, () => {
        expect(can(role, action)).toBe(allowed);
        const actor = { kind: "user" as const, userId: "u", organizationId: "o", role, label: "user:x" };
        if (allowed) expect(() => assertCan(actor, action)).not.toThrow();
        else expect(() => assertCan(actor, action)).toThrow(/does not allow/);
      });
    }
  }
});
