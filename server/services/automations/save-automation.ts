/**
 * Saving automations: create, replace (optionally conditional on the version), patch settings,
 * delete, duplicate. Every save of the document is a new version. Intakes are written in the save
 * transaction; upstream trigger setup/teardown runs after the commit. The `…Tx` writers run inside
 * the caller's transaction (`conveyor apply` writes a whole bundle in one).
 */
import type { Store } from "@/db/store";
import type { z } from "zod";
import type { AppDeps } from "../../deps";
import type { Actor } from "../../auth/permissions";
import { AppError, issueMessage, notFound } from "../../errors";
import { newId } from "../../ids";
import { requireWorkspace } from "../access";
import { recordAudit } from "../audit/record-audit";
import {
  AutomationDocumentSchema,
  AutomationPatchSchema,
  type Automation,
  type AutomationDocument,
  type AutomationPatch,
  type DocumentProblem,
} from "../../contracts/automations";
import { currentLabels, GraphSchema, type Graph } from "../../contracts/graph";
import { applyTriggerLifecycle, syncIntakes } from "./trigger-lifecycle";
import { toAutomations, type AutomationRow } from "./to-automation";
import { errorsOf } from "./validate-automation";
import { validateAutomationDocument } from "./validate-in-workspace";
import { sealGraphSecrets } from "./node-secrets";
import { chooseKey } from "../as-code/keys";

/** Problems that make a document unsavable even as a draft: its shape, duplicate node ids, the error handler. */
const isBlocking = (p: DocumentProblem) => p.path === "errorHandlerId" || /^graph\.nodes\.\d+\.id$/.test(p.path);

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/**
 * Validates a document for saving. A disabled automation is saved as a draft with its problems;
 * an enabled one (or one being enabled) must have no errors. Warnings never block.
 */
export async function checkDocument(deps: AppDeps, workspaceId: string, doc: unknown, opts: { selfId?: string; enabled: (d: AutomationDocument) => boolean }) {
  const problems = await validateAutomationDocument(deps, workspaceId, doc, opts.selfId);
  const shape = AutomationDocumentSchema.safeParse(doc);
  if (!shape.success) throw new AppError("validation_failed", `The automation document is malformed: ${problems[0]?.message ?? shape.error.message}`, problems);
  const blocking = problems.filter(isBlocking);
  if (blocking.length) throw new AppError("validation_failed", `The automation has ${plural(blocking.length, "problem")}: ${blocking[0]!.message}`, blocking);
  const errors = errorsOf(problems);
  if (errors.length && opts.enabled(shape.data)) {
    throw new AppError(
      "validation_failed",
      `An enabled automation must have no problems, and this one has ${errors.length}: ${errors[0]!.path ? `${errors[0]!.path}: ` : ""}${errors[0]!.message}${errors.length > 1 ? " (and more)" : ""}. Fix them, or save it with enabled: false to keep it as a draft.`,
      errors,
    );
  }
  const d = shape.data;
  d.graph = {
    ...d.graph,
    nodes: d.graph.nodes.map(({ labels, ...n }) => {
      const l = currentLabels(n.config, labels);
      return l ? { ...n, labels: l } : n;
    }),
  };
  return { doc: d, problems };
}

/** Enabling needs a valid current version: re-checked against today's connections. */
async function assertEnableable(deps: AppDeps, workspaceId: string, row: AutomationRow) {
  const { problems } = await checkDocument(
    deps,
    workspaceId,
    { name: row.name, description: row.description, errorHandlerId: row.errorHandlerId, graph: row.graph },
    { selfId: row.id, enabled: () => true },
  );
  return problems;
}

export async function loadAutomationRow(s: Store, workspaceId: string, automationId: string): Promise<AutomationRow> {
  const row = await s.automations.get(workspaceId, automationId);
  if (!row) throw notFound("Automation", automationId);
  return row;
}

/** Inside a save transaction: the row, locked until commit (concurrent saves of one automation queue). */
async function lockAutomationRow(s: Store, workspaceId: string, automationId: string): Promise<AutomationRow> {
  const row = await s.automations.lock(workspaceId, automationId);
  if (!row) throw notFound("Automation", automationId);
  return row;
}

async function one(
  deps: AppDeps,
  row: AutomationRow,
  setupProblems: Array<{ nodeId: string; message: string }> = [],
): Promise<Automation & { setupProblems?: Array<{ nodeId: string; message: string }> }> {
  const a = (await toAutomations(deps, deps.store, [row]))[0]!;
  return setupProblems.length ? { ...a, setupProblems } : a;
}

async function insertVersion(s: Store, automationId: string, version: number, name: string, description: string, graph: Graph, actor: Actor, at: string) {
  await s.automations.insertVersion({ id: newId("ver"), automationId, version, name, description, graph, createdBy: actor.label, createdAt: at });
}

type ValidDocument = z.output<typeof AutomationDocumentSchema>;

/** The writes of a create (version 1 of document `d`) inside the caller's transaction (also used by `conveyor apply`); the graph is sealed here. */
export async function insertAutomationTx(
  deps: AppDeps,
  s: Store,
  actor: Actor,
  organizationId: string,
  n: { id: string; workspaceId: string; key: string; d: ValidDocument; problems: DocumentProblem[]; at: string },
): Promise<AutomationRow> {
  const { d, at } = n;
  const graph = sealGraphSecrets(deps.box, GraphSchema.parse(d.graph));
  const sealed: AutomationRow = {
    id: n.id,
    workspaceId: n.workspaceId,
    key: n.key,
    name: d.name,
    description: d.description ?? "",
    enabled: d.enabled ?? false,
    concurrency: d.concurrency ?? 5,
    version: 1,
    graph,
    errorHandlerId: d.errorHandlerId ?? null,
    problems: n.problems,
    source: null,
    createdBy: actor.label,
    createdAt: at,
    updatedAt: at,
  };
  await s.automations.insert(sealed);
  await insertVersion(s, sealed.id, sealed.version, sealed.name, sealed.description, graph, actor, sealed.createdAt);
  await syncIntakes(deps, s, { ...sealed, graph });
  await recordAudit(s, { organizationId, workspaceId: sealed.workspaceId, actor: actor.label, action: "automation.create", target: sealed.id });
  return sealed;
}

/** The writes of a replace (a new version) inside the caller's transaction; placeholders keep the stored secrets. */
export async function updateAutomationTx(
  deps: AppDeps,
  s: Store,
  actor: Actor,
  organizationId: string,
  cur: AutomationRow,
  d: ValidDocument,
  problems: DocumentProblem[],
  at: string,
): Promise<AutomationRow> {
  const graph = sealGraphSecrets(deps.box, d.graph, GraphSchema.parse(cur.graph));
  const next: AutomationRow = {
    ...cur,
    name: d.name,
    key: d.key ?? cur.key,
    description: d.description ?? cur.description,
    enabled: d.enabled ?? cur.enabled,
    concurrency: d.concurrency ?? cur.concurrency,
    errorHandlerId: d.errorHandlerId === undefined ? cur.errorHandlerId : d.errorHandlerId,
    graph,
    problems,
    version: cur.version + 1,
    updatedAt: at,
  };
  await s.automations.update(cur.id, next);
  await insertVersion(s, cur.id, next.version, next.name, next.description, graph, actor, at);
  await syncIntakes(deps, s, { ...next, graph });
  await recordAudit(s, {
    organizationId,
    workspaceId: cur.workspaceId,
    actor: actor.label,
    action: "automation.update",
    target: cur.id,
    data: { version: next.version },
  });
  return next;
}

/** The writes of a delete inside the caller's transaction (upstream teardown is the caller's, after the commit). */
export async function deleteAutomationTx(s: Store, actor: Actor, organizationId: string, workspaceId: string, automationId: string): Promise<void> {
  // A line step naming this automation would fail every task reaching it: refuse instead.
  const usedBy = (await s.automations.usedByLines(workspaceId, automationId)).map((name) => `"${name}"`);
  if (usedBy.length) {
    throw new AppError("conflict", `Automation ${automationId} is a step of line ${usedBy.join(", ")}; remove it from the line first.`);
  }
  // Audited before the row goes, so the entry keeps the automation's name.
  await recordAudit(s, { organizationId, workspaceId, actor: actor.label, action: "automation.delete", target: automationId });
  await s.runs.deleteOfAutomation(automationId);
  await s.automations.delete(automationId);
}

export async function createAutomation(deps: AppDeps, actor: Actor, workspaceId: string, doc: AutomationDocument | unknown) {
  const ws = await requireWorkspace(deps.store, actor, workspaceId, "automation.write");
  const { doc: d, problems } = await checkDocument(deps, workspaceId, doc, { enabled: (x) => x.enabled ?? false });
  const at = deps.now().toISOString();
  const row = await deps.store.tx(async (s) =>
    insertAutomationTx(deps, s, actor, ws.organizationId, {
      id: newId("aut"),
      workspaceId,
      key: await chooseKey(s, "automation", workspaceId, d.name, d.key),
      d,
      problems,
      at,
    }),
  );
  const setupProblems = await applyTriggerLifecycle(deps, row, null, row);
  return one(deps, await loadAutomationRow(deps.store, workspaceId, row.id), setupProblems);
}

export async function replaceAutomation(
  deps: AppDeps,
  actor: Actor,
  workspaceId: string,
  automationId: string,
  doc: AutomationDocument | unknown,
  opts: { ifVersion?: number } = {},
) {
  const ws = await requireWorkspace(deps.store, actor, workspaceId, "automation.write");
  const before = await loadAutomationRow(deps.store, workspaceId, automationId);
  if (opts.ifVersion !== undefined && opts.ifVersion !== before.version) {
    throw new AppError("precondition_failed", `The automation is at version ${before.version}, not ${opts.ifVersion}; reload it and apply your change again.`);
  }
  const { doc: d, problems } = await checkDocument(deps, workspaceId, doc, { selfId: automationId, enabled: (x) => x.enabled ?? before.enabled });
  const at = deps.now().toISOString();
  const after = await deps.store.tx(async (s) => {
    const cur = await lockAutomationRow(s, workspaceId, automationId);
    if (opts.ifVersion !== undefined && opts.ifVersion !== cur.version)
      throw new AppError("precondition_failed", `The automation changed meanwhile (now version ${cur.version}).`);
    if (d.key && d.key !== cur.key) await chooseKey(s, "automation", workspaceId, d.name, d.key, automationId);
    return updateAutomationTx(deps, s, actor, ws.organizationId, cur, d, problems, at);
  });
  const setupProblems = await applyTriggerLifecycle(deps, after, { enabled: before.enabled, graph: GraphSchema.parse(before.graph) }, after);
  return one(deps, await loadAutomationRow(deps.store, workspaceId, automationId), setupProblems);
}

/** `ifVersion` (REST `If-Match`): refused with 412 unless the automation is still at that version. */
export async function patchAutomation(
  deps: AppDeps,
  actor: Actor,
  workspaceId: string,
  automationId: string,
  patch: AutomationPatch,
  opts: { ifVersion?: number } = {},
) {
  const ws = await requireWorkspace(deps.store, actor, workspaceId, "automation.write");
  const p = AutomationPatchSchema.safeParse(patch);
  if (!p.success)
    throw new AppError(
      "validation_failed",
      "Invalid settings",
      p.error.issues.map((i) => ({ path: i.path.join("."), message: issueMessage(i) })),
    );
  const before = await loadAutomationRow(deps.store, workspaceId, automationId);
  const stale = (version: number) =>
    new AppError("precondition_failed", `The automation is at version ${version}, not ${opts.ifVersion}; reload it and apply your change again.`);
  if (opts.ifVersion !== undefined && opts.ifVersion !== before.version) throw stale(before.version);
  if (p.data.errorHandlerId) {
    if (p.data.errorHandlerId === automationId)
      throw new AppError("validation_failed", "An automation cannot be its own error handler", [
        { path: "errorHandlerId", message: "Choose another automation" },
      ]);
    // A body field, not the path: like a document naming a missing handler, a 422 naming the field (not a 404).
    if (!(await deps.store.automations.get(workspaceId, p.data.errorHandlerId)))
      throw new AppError(
        "validation_failed",
        `Automation ${p.data.errorHandlerId} does not exist in this workspace; the error handler must be one of its automations.`,
        [{ path: "errorHandlerId", message: `Automation ${p.data.errorHandlerId} does not exist in this workspace` }],
      );
  }
  // Enabling needs a valid graph (a draft with problems stays disabled); the check also refreshes the stored problems.
  const fresh = p.data.enabled && !before.enabled ? await assertEnableable(deps, workspaceId, before) : undefined;
  const at = deps.now().toISOString();
  const after = await deps.store.tx(async (s) => {
    const cur = await lockAutomationRow(s, workspaceId, automationId);
    if (opts.ifVersion !== undefined && opts.ifVersion !== cur.version) throw stale(cur.version);
    if (p.data.key && p.data.key !== cur.key) await chooseKey(s, "automation", workspaceId, cur.name, p.data.key, automationId);
    const renamed = (p.data.name !== undefined && p.data.name !== cur.name) || (p.data.description !== undefined && p.data.description !== cur.description);
    const next: AutomationRow = {
      ...cur,
      ...Object.fromEntries(Object.entries(p.data).filter(([, v]) => v !== undefined)),
      ...(fresh ? { problems: fresh } : {}),
      updatedAt: at,
    } as AutomationRow;
    if (renamed) {
      next.version = cur.version + 1;
      await insertVersion(s, automationId, next.version, next.name, next.description, GraphSchema.parse(cur.graph), actor, at);
    }
    await s.automations.update(automationId, next);
    await syncIntakes(deps, s, { ...next, graph: GraphSchema.parse(next.graph) });
    await recordAudit(s, {
      organizationId: ws.organizationId,
      workspaceId,
      actor: actor.label,
      action: "automation.update",
      target: automationId,
      data: p.data as Record<string, unknown>,
    });
    return next;
  });
  const graph = GraphSchema.parse(after.graph);
  const problems = await applyTriggerLifecycle(deps, after, { enabled: before.enabled, graph }, { enabled: after.enabled, graph });
  return one(deps, await loadAutomationRow(deps.store, workspaceId, automationId), problems);
}

export async function deleteAutomation(deps: AppDeps, actor: Actor, workspaceId: string, automationId: string): Promise<void> {
  const ws = await requireWorkspace(deps.store, actor, workspaceId, "automation.delete");
  const before = await loadAutomationRow(deps.store, workspaceId, automationId);
  await deps.store.tx((s) => deleteAutomationTx(s, actor, ws.organizationId, workspaceId, automationId));
  await applyTriggerLifecycle(deps, before, { enabled: before.enabled, graph: GraphSchema.parse(before.graph) }, null);
}

export async function duplicateAutomation(deps: AppDeps, actor: Actor, workspaceId: string, automationId: string, opts: { name?: string } = {}) {
  await requireWorkspace(deps.store, actor, workspaceId, "automation.write");
  const src = await loadAutomationRow(deps.store, workspaceId, automationId);
  return createAutomation(deps, actor, workspaceId, {
    name: opts.name ?? `${src.name} (copy)`,
    description: src.description,
    enabled: false,
    concurrency: src.concurrency,
    errorHandlerId: src.errorHandlerId,
    graph: src.graph,
  });
}
