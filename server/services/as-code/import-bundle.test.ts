/**
 * An apply that races an editor save: the plan is made from the rows as read, the write locks each
 * automation and refuses (409, nothing written) when it changed between the two.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDeps, type TestDeps } from "../../testing";
import { setupOwner } from "../users/setup-owner";
import { getUserActor } from "../users/get-user-actor";
import { createAutomation, patchAutomation } from "../automations/save-automation";
import { AppError } from "../../errors";
import type { Actor } from "../../auth/permissions";
import { BundleSchema, ImportBodySchema } from "../../contracts/as-code";
import { exportBundle } from "./export-bundle";
import { importBundle } from "./import-bundle";
import { loadWorkspaceRows } from "./workspace-state";

let deps: TestDeps;
let actor: Actor;
let ws: string;
let appId: string;

const graph = { nodes: [{ id: "t", name: "hook", key: "core.webhook", config: {}, position: { x: 0, y: 0 } }], edges: [] };

beforeAll(async () => {
  deps = await createTestDeps();
  const setup = await setupOwner(deps, { email: "race@example.test", password: "race password long enough" });
  actor = (await getUserActor(deps, setup.user.id))!;
  ws = setup.workspace.id;
  appId = (await createAutomation(deps, actor, ws, { name: "Nightly", description: "from the editor", enabled: false, graph })).id;
  // Managed from here on: the first apply records what it applied.
  const first = await importBundle(deps, actor, ws, ImportBodySchema.parse(BundleSchema.parse(await exportBundle(deps, actor, ws))));
  expect(first.applied).toBe(true);
});
afterAll(async () => deps?.close());

/** Applies `bundle`, running `meanwhile` after its plan is made, just before its transaction starts; returns what the apply threw. */
async function applyWithWriteBetween(bundle: unknown, meanwhile: () => Promise<void>): Promise<unknown> {
  const store = deps.store as { tx: typeof deps.store.tx };
  const realTx = store.tx;
  store.tx = (async (fn: Parameters<typeof realTx>[0]) => {
    store.tx = realTx;
    await meanwhile();
    return realTx.call(deps.store, fn);
  }) as typeof realTx;
  try {
    await importBundle(deps, actor, ws, ImportBodySchema.parse(bundle));
    return undefined;
  } catch (e) {
    return e;
  } finally {
    store.tx = realTx;
  }
}

describe("apply racing an editor save", () => {
  it("refuses with a conflict and writes nothing when the automation is saved between the plan and the write", async () => {
    const exported = BundleSchema.parse(await exportBundle(deps, actor, ws));
    const bundle = {
      ...exported,
      apps: [
        { ...exported.apps[0]!, description: "from the files" },
        { ...exported.apps[0]!, key: "second", name: "Second", description: "new in the files" },
      ],
    };
    // The editor saves once the plan is made, just before the apply's transaction starts.
    let raced = false;
    const err = await applyWithWriteBetween(bundle, async () => {
      await patchAutomation(deps, actor, ws, appId, { description: "saved in the editor meanwhile" });
      raced = true;
    });
    expect(raced).toBe(true);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe("conflict");
    expect((err as AppError).message).toContain('The automation "nightly" changed while the bundle was being applied');

    // Nothing of the bundle landed: the editor's save stands and the new automation was not created.
    const rows = await loadWorkspaceRows(deps.store, ws);
    expect(rows.automations.map((a) => a.key)).toEqual(["nightly"]);
    expect(rows.automations[0]!.description).toBe("saved in the editor meanwhile");

    // The next plan shows the editor's change as a conflict; --force then applies the files over it.
    const plan = await importBundle(deps, actor, ws, ImportBodySchema.parse({ ...bundle, dryRun: true }));
    expect(plan.conflicts.map((c) => c.key)).toEqual(["nightly"]);
    const forced = await importBundle(deps, actor, ws, ImportBodySchema.parse({ ...bundle, force: true }));
    expect(forced.summary).toMatchObject({ create: 1, update: 1 });
    const after = await loadWorkspaceRows(deps.store, ws);
    expect(after.automations.map((a) => [a.key, a.description]).sort()).toEqual([
      ["nightly", "from the files"],
      ["second", "new in the files"],
    ]);
  });

  it("settles two applies that create the same new key at once: one creates it, the other gets a conflict and writes nothing", async () => {
    const exported = BundleSchema.parse(await exportBundle(deps, actor, ws));
    const base = exported.apps.find((a) => a.key === "nightly")!;
    const mine = { ...exported, apps: [...exported.apps, { ...base, key: "weekly", name: "Weekly", description: "mine" }] };
    const theirs = { ...exported, apps: [...exported.apps, { ...base, key: "weekly", name: "Weekly", description: "theirs" }] };
    // The other apply runs from start to commit after this one has planned the create, before it writes.
    let other: Awaited<ReturnType<typeof importBundle>> | undefined;
    const err = await applyWithWriteBetween(mine, async () => {
      other = await importBundle(deps, actor, ws, ImportBodySchema.parse(theirs));
    });
    expect(other?.applied).toBe(true);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe("conflict");
    expect((err as AppError).message).toContain('Another automation with the key "weekly" was created while the bundle was being applied');
    const rows = await loadWorkspaceRows(deps.store, ws);
    expect(rows.automations.filter((a) => a.key === "weekly").map((a) => a.description)).toEqual(["theirs"]);
  });
});
