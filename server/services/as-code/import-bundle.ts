/**
 * Plan and apply a bundle of specs (`conveyor plan` / `conveyor apply`, POST …/import): every
 * problem at once (422), the plan (create / update with field-level changes / delete with prune /
 * unchanged), conflicts with changes made outside the files since the last apply (409 unless
 * forced), then all writes in one transaction. Upstream trigger set-up runs after the commit, as
 * for any save; its problems are reported, not rolled back.
 */
import type { Store } from "@/db/store";
import type { AutomationRow, ManagedSource } from "@/db/types";
import type { AppDeps } from "../../deps";
import { assertCan, type Actor } from "../../auth/permissions";
import { AppError, type FieldProblem } from "../../errors";
import type { ImportBodySchema, ImportResult, PlanEntry, ResourceKind } from "../../contracts/as-code";
import { AutomationDocumentSchema } from "../../contracts/automations";
import { GraphSchema, type Graph } from "../../contracts/graph";
import { requireWorkspace } from "../access";
import { deleteAutomationTx, insertAutomationTx, updateAutomationTx } from "../automations/save-automation";
import { applyTriggerLifecycle } from "../automations/trigger-lifecycle";
import { deleteLineTx, insertLineTx, updateLineTx } from "../lines/lines";
import { deleteWebhookIntakeTx, insertWebhookIntakeTx, updateWebhookIntakeTx } from "../intakes-webhook/intakes";
import { canonicalApp, canonicalIntake, canonicalLine } from "../../as-code/canonical";
import { specChanges } from "../../as-code/diff";
import { configSchemaFor } from "../../as-code/units";
import { resolveBundle, type Resolved } from "./resolve-specs";
import { loadWorkspaceRows, WorkspaceState } from "./workspace-state";
import { workspaceKeys } from "./keys";
import type { z } from "zod";

type Body = z.output<typeof ImportBodySchema>;
type Conflict = ImportResult["conflicts"][number] & { path: string };

/** References to resources that prune would delete. */
function pruneProblems(body: Body): FieldProblem[] {
  const apps = new Set(body.apps.map((a) => a.key));
  const lineKeys = new Set(body.lines.map((l) => l.key));
  const out: FieldProblem[] = [];
  body.apps.forEach(
    (a, i) =>
      a.errorHandler &&
      !apps.has(a.errorHandler) &&
      out.push({ path: `apps.${i}.errorHandler`, message: `"${a.errorHandler}" is not in the bundle, so --prune would delete it` }),
  );
  body.lines.forEach((l, i) =>
    l.steps.forEach(
      (s, j) =>
        !apps.has(s.automation) &&
        out.push({ path: `lines.${i}.steps.${j}.automation`, message: `"${s.automation}" is not in the bundle, so --prune would delete it` }),
    ),
  );
  body.intakes.forEach(
    (t, i) => !lineKeys.has(t.line) && out.push({ path: `intakes.${i}.line`, message: `"${t.line}" is not in the bundle, so --prune would delete it` }),
  );
  return out;
}

async function plan(deps: AppDeps, state: WorkspaceState, r: Resolved, body: Body) {
  const entries: PlanEntry[] = [];
  const conflicts: Conflict[] = [];
  const file = (kind: ResourceKind, key: string) => body.source.files[`${kind}/${key}`] ?? null;
  const entry = (kind: ResourceKind, key: string, id: string | null, changes: PlanEntry["changes"] | null): PlanEntry => ({
    kind,
    key,
    id,
    file: file(kind, key),
    changes: changes ?? [],
    action: changes === null ? "create" : changes.length ? "update" : "unchanged",
  });
  const changedApp = (row: (typeof state.rows.automations)[number]) =>
    row.source && (row.version !== row.source.appliedVersion || row.updatedAt !== row.source.appliedUpdatedAt);
  const appConflict = async (row: (typeof state.rows.automations)[number], path: string) => {
    const by = await deps.store.automations.lastEditor(row.id);
    conflicts.push({
      kind: "automation",
      key: state.appKey.get(row.id)!,
      id: row.id,
      path,
      message: `changed outside the files since the last apply (${row.version !== row.source!.appliedVersion ? `version ${row.source!.appliedVersion ?? "?"} → ${row.version}${by ? `, last saved by ${by}` : ""}` : "settings"} at ${row.updatedAt}); export it to keep that change, or apply with --force to overwrite it`,
    });
  };
  for (const a of r.apps) {
    const changes = a.existing
      ? [
          ...specChanges(canonicalApp(state.appSpec(a.existing), configSchemaFor), canonicalApp(a.spec, configSchemaFor)),
          ...a.secretChanges.map((path) => ({ path, op: "change" as const, secret: true })),
        ]
      : null;
    const e = entry("automation", a.spec.key, a.existing?.id ?? null, changes);
    entries.push(e);
    if (e.action === "update" && changedApp(a.existing!)) await appConflict(a.existing!, `apps.${a.index}`);
  }
  for (const l of r.lines) {
    const e = entry(
      "line",
      l.spec.key,
      l.existing?.id ?? null,
      l.existing ? specChanges(canonicalLine(state.lineSpec(l.existing)), canonicalLine(l.spec)) : null,
    );
    entries.push(e);
    const src = l.existing?.source;
    if (e.action === "update" && src && l.existing!.updatedAt !== src.appliedUpdatedAt) {
      conflicts.push({
        kind: "line",
        key: l.spec.key,
        id: l.existing!.id,
        path: `lines.${l.index}`,
        message: `changed outside the files since the last apply (at ${l.existing!.updatedAt}); export it to keep that change, or apply with --force to overwrite it`,
      });
    }
  }
  for (const t of r.intakes) {
    const changes = t.existing ? specChanges(canonicalIntake(state.intakeSpec(t.existing)), canonicalIntake(t.spec)) : null;
    if (changes && t.secret !== undefined) changes.push({ path: "secret", op: "change", secret: true });
    entries.push(entry("intake", t.spec.key, t.existing?.id ?? null, changes));
  }
  const inBundle = {
    automation: new Set(r.apps.map((a) => a.spec.key)),
    line: new Set(r.lines.map((l) => l.spec.key)),
    intake: new Set(r.intakes.map((t) => t.spec.key)),
  };
  const others: Array<[ResourceKind, { id: string; source: ManagedSource | null }, string]> = [
    ...state.rows.automations.map((row) => ["automation", row, state.appKey.get(row.id)!] as [ResourceKind, typeof row, string]),
    ...state.rows.lines.map((row) => ["line", row, state.lineKey.get(row.id)!] as [ResourceKind, typeof row, string]),
    ...state.rows.intakes.map((row) => ["intake", row, state.intakeKey.get(row.id)!] as [ResourceKind, typeof row, string]),
  ];
  for (const [kind, row, key] of others) {
    if (inBundle[kind].has(key)) continue;
    entries.push({ kind, key, id: row.id, file: null, changes: [], action: body.prune ? "delete" : "unmanaged" });
    if (body.prune && kind === "automation" && changedApp(row as (typeof state.rows.automations)[number]))
      await appConflict(row as (typeof state.rows.automations)[number], `automation:${key}`);
  }
  const count = (a: PlanEntry["action"]) => entries.filter((e) => e.action === a).length;
  const summary = { create: count("create"), update: count("update"), delete: count("delete"), unchanged: count("unchanged"), unmanaged: count("unmanaged") };
  return { entries, conflicts, summary };
}

export async function importBundle(deps: AppDeps, actor: Actor, workspaceId: string, body: Body): Promise<ImportResult> {
  const ws = await requireWorkspace(deps.store, actor, workspaceId, "automation.write");
  assertCan(actor, "line.write");
  assertCan(actor, "intake.write");
  if (body.prune) assertCan(actor, "automation.delete");
  const state = new WorkspaceState(await loadWorkspaceRows(deps.store, workspaceId));
  const r = resolveBundle(state, body, body.secrets, deps.box);
  const problems = [...r.problems, ...(body.prune ? pruneProblems(body) : [])];
  if (problems.length) {
    throw new AppError(
      "validation_failed",
      `The bundle has ${problems.length} problem${problems.length === 1 ? "" : "s"}: ${problems[0]!.path}: ${problems[0]!.message}${problems.length > 1 ? " (and more)" : ""}`,
      problems,
    );
  }
  const p = await plan(deps, state, r, body);
  const result = (applied: boolean, setupProblems: ImportResult["setupProblems"] = []): ImportResult => ({
    dryRun: body.dryRun,
    applied,
    summary: p.summary,
    entries: p.entries,
    conflicts: p.conflicts.map(({ path: _p, ...c }) => c),
    setupProblems,
  });
  if (body.dryRun) return result(false);
  if (p.conflicts.length && !body.force) {
    throw new AppError(
      "conflict",
      `${p.conflicts.length} resource${p.conflicts.length === 1 ? " was" : "s were"} changed outside the files since the last apply: ${p.conflicts.map((c) => `${c.kind} "${c.key}"`).join(", ")}. Nothing was applied; export to keep those changes, or apply with --force.`,
      p.conflicts.map((c) => ({ path: c.path, message: `${c.kind} "${c.key}" ${c.message}` })),
    );
  }
  const lifecycle = await writeBundle(deps, actor, ws.organizationId, workspaceId, state, r, p.entries, body).catch(async (e: unknown) => {
    throw (await createdMeanwhile(deps.store, workspaceId, p.entries).catch(() => undefined)) ?? e;
  });
  const setupProblems: ImportResult["setupProblems"] = [];
  for (const l of lifecycle) {
    for (const sp of await applyTriggerLifecycle(deps, { id: l.id, workspaceId }, l.before, l.after)) setupProblems.push({ key: l.key, ...sp });
  }
  return result(true, setupProblems);
}

type Lifecycle = { id: string; key: string; before: { enabled: boolean; graph: Graph } | null; after: { enabled: boolean; graph: Graph } | null };

/** A row changed between the plan and the write (an editor save meanwhile): nothing is applied. */
function changedMeanwhile(kind: ResourceKind, key: string): AppError {
  return new AppError("conflict", `The ${kind} "${key}" changed while the bundle was being applied; nothing was applied. Run plan again.`, [
    { path: `${kind}:${key}`, message: "changed meanwhile" },
  ]);
}

/**
 * After a failed write: a key the plan meant to create that another writer (a concurrent apply, the
 * editor) took meanwhile. The unique index refused the insert and rolled everything back: a conflict.
 */
async function createdMeanwhile(store: Store, workspaceId: string, entries: PlanEntry[]): Promise<AppError | undefined> {
  for (const kind of ["automation", "line", "intake"] as const) {
    const creates = entries.filter((e) => e.kind === kind && e.action === "create");
    if (!creates.length) continue;
    const taken = new Set((await workspaceKeys(store, kind, workspaceId)).values());
    const e = creates.find((x) => taken.has(x.key));
    if (e)
      return new AppError(
        "conflict",
        `Another ${kind} with the key "${e.key}" was created while the bundle was being applied; nothing was applied. Run plan again.`,
        [{ path: `${kind}:${e.key}`, message: "created meanwhile" }],
      );
  }
  return undefined;
}

/** All writes of an apply in one transaction; returns the trigger set-up/teardown to run after the commit. */
async function writeBundle(
  deps: AppDeps,
  actor: Actor,
  orgId: string,
  workspaceId: string,
  state: WorkspaceState,
  r: Resolved,
  entries: PlanEntry[],
  body: Body,
): Promise<Lifecycle[]> {
  const at = deps.now().toISOString();
  const action = (kind: ResourceKind, key: string) => entries.find((e) => e.kind === kind && e.key === key)!.action;
  const source = (kind: ResourceKind, key: string, extra: Partial<ManagedSource> & { appliedUpdatedAt: string }): ManagedSource => ({
    repository: body.source.repository ?? null,
    path: body.source.files[`${kind}/${key}`] ?? null,
    commit: body.source.commit ?? null,
    appliedAt: at,
    appliedBy: actor.label,
    ...extra,
  });
  const lifecycle: Lifecycle[] = [];
  const graphOf = (row: { enabled: boolean; graph: unknown }) => ({ enabled: row.enabled, graph: GraphSchema.parse(row.graph) });
  /** The automation locked until commit, as it was planned (else a conflict). */
  const lockedAsPlanned = async (s: Store, planned: AutomationRow, key: string): Promise<AutomationRow> => {
    const cur = await s.automations.lock(workspaceId, planned.id);
    if (!cur || cur.version !== planned.version || cur.updatedAt !== planned.updatedAt) throw changedMeanwhile("automation", key);
    return cur;
  };
  return deps.store.tx(async (s) => {
    // Rows made before keys existed keep the key they were planned under.
    for (const row of state.rows.automations) if (!row.key) await s.automations.setKeyIfUnset(row.id, state.appKey.get(row.id)!);
    for (const row of state.rows.lines) if (!row.key) await s.lines.setKeyIfUnset(row.id, state.lineKey.get(row.id)!);
    for (const row of state.rows.intakes) if (!row.key) await s.intakes.setKeyIfUnset(row.id, state.intakeKey.get(row.id)!);
    for (const a of r.apps) {
      const act = action("automation", a.spec.key);
      const d = AutomationDocumentSchema.parse(a.doc);
      let row = a.existing ? await lockedAsPlanned(s, a.existing, a.spec.key) : undefined;
      if (act === "create") {
        row = await insertAutomationTx(deps, s, actor, orgId, { id: a.id, workspaceId, key: a.spec.key, d, problems: a.warnings, at });
        lifecycle.push({ id: row.id, key: a.spec.key, before: null, after: graphOf(row) });
      } else if (act === "update") {
        const before = row!;
        row = await updateAutomationTx(deps, s, actor, orgId, before, d, a.warnings, at);
        lifecycle.push({ id: row.id, key: a.spec.key, before: graphOf(before), after: graphOf(row) });
      }
      await s.automations.setSource(
        row!.id,
        source("automation", a.spec.key, { appliedVersion: row!.version, appliedUpdatedAt: row!.updatedAt, secretRefs: a.secretRefs }),
      );
    }
    for (const l of r.lines) {
      const act = action("line", l.spec.key);
      let row = l.existing;
      if (act === "create") row = await insertLineTx(deps, s, actor, orgId, workspaceId, { id: l.id, name: l.spec.name, key: l.spec.key, steps: l.steps });
      else if (act === "update") row = await updateLineTx(deps, s, actor, orgId, row!, { name: l.spec.name, key: l.spec.key, steps: l.steps });
      await s.lines.setSource(row!.id, source("line", l.spec.key, { appliedUpdatedAt: row!.updatedAt }));
    }
    for (const t of r.intakes) {
      const act = action("intake", t.spec.key);
      let row = t.existing;
      const input = {
        name: t.spec.name,
        key: t.spec.key,
        lineId: t.lineId,
        open: t.spec.open,
        requireTimestampedSignature: t.spec.requireTimestampedSignature ?? false,
        signatureToleranceSeconds: t.spec.signatureToleranceSeconds ?? null,
      };
      if (act === "create") row = await insertWebhookIntakeTx(deps, s, actor, orgId, workspaceId, { ...input, secret: t.secret! });
      else if (act === "update") row = await updateWebhookIntakeTx(deps, s, actor, orgId, row!, { ...input, secret: t.secret });
      await s.intakes.setSource(row!.id, source("intake", t.spec.key, { appliedUpdatedAt: row!.updatedAt, secretRefs: { secret: t.secretName } }));
    }
    for (const e of entries.filter((x) => x.action === "delete" && x.kind === "intake")) await deleteWebhookIntakeTx(s, actor, orgId, workspaceId, e.id!);
    for (const e of entries.filter((x) => x.action === "delete" && x.kind === "line")) await deleteLineTx(s, actor, orgId, workspaceId, e.id!);
    for (const e of entries.filter((x) => x.action === "delete" && x.kind === "automation")) {
      const before = await lockedAsPlanned(s, state.rows.automations.find((row) => row.id === e.id)!, e.key);
      await deleteAutomationTx(s, actor, orgId, workspaceId, e.id!);
      lifecycle.push({ id: e.id!, key: e.key, before: graphOf(before), after: null });
    }
    return lifecycle;
  });
}
