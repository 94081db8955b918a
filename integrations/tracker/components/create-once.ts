/**
 * Creating a Jira issue once per step, across the step's retries (Create Issue, Create Incident).
 *
 * `POST /rest/api/3/issue` has no idempotency key. A create whose answer is lost (a timeout, a reset
 * connection, a 5xx from the gateway, a worker that died mid-call) may still have created the issue, and
 * the runner retries the step. So every create carries the label `conveyor-<step id>` (the step id is
 * stable across the step's retries and resumes), and a retried attempt first looks that label up with
 * `GET /rest/api/3/search/jql`: a hit is the issue the lost attempt created, and the step carries on with it
 * instead of creating a second one. The first attempt sends the create alone (one request).
 *
 * A label, not an issue entity property: JQL reaches entity properties only when an app module declares
 * them for indexing (Connect / Forge), which an OAuth 2.0 app cannot; labels are searchable everywhere.
 * A project whose create screen lacks Labels refuses the field (400, `errors.labels`): the create is then
 * sent again without it (nothing was created by the refused call) and that step is not protected.
 * Create Alert uses the same key as its default alias (the operations module's de-duplication key).
 * Decision record: docs/spec-decisions.md §6.
 */
import type { Logger, RunInfo } from "../../core/define";
import { IntegrationHttpError } from "../../core/errors";

/** The label a step's create carries: `conveyor-<step id>` (no spaces, as Jira requires). */
export const createLabel = (run: Pick<RunInfo, "stepId">) => `conveyor-${run.stepId}`;

/** True when an earlier attempt of this step ran (and may have created the issue without learning it). */
export const isRetry = (run: Pick<RunInfo, "attempt">) => run.attempt > 1;

type Found = { id: string; key: string; self: string };
type Search = (query: { jql: string; fields?: string; maxResults?: number }) => Promise<{ issues: Found[] }>;

/** The issue an earlier attempt of the step created (the oldest one carrying its label), or undefined. */
export async function findCreated(search: Search, label: string): Promise<Found | undefined> {
  const { issues } = await search({ jql: `labels = "${label}" ORDER BY created ASC`, fields: "summary", maxResults: 1 });
  return issues?.[0];
}

/** Adds the label to a create body: to `update.labels` when the caller edits labels there, else to `fields.labels`. */
export function withLabel(body: { fields: Record<string, unknown>; update?: Record<string, unknown> }, label: string) {
  const fields = { ...body.fields };
  const update = body.update ? { ...body.update } : undefined;
  if (update && Array.isArray(update.labels)) update.labels = [...(update.labels as unknown[]), { add: label }];
  else if (Array.isArray(fields.labels)) fields.labels = [...(fields.labels as unknown[]), label];
  else if (fields.labels === undefined) fields.labels = [label];
  return { ...body, fields, ...(update ? { update } : {}) };
}

/** Jira refused only the labels field (not on the project's create screen): nothing was created. */
function refusedOnlyLabels(e: unknown): boolean {
  if (!(e instanceof IntegrationHttpError) || e.status !== 400) return false;
  const errors = ((e.body ?? {}) as { errors?: Record<string, unknown> }).errors ?? {};
  return Object.keys(errors).length === 1 && "labels" in errors;
}

/**
 * Sends the create with the step's label; if Jira refuses only the label (Labels not on the create screen),
 * sends it again without it and logs that a lost answer could then leave two issues.
 */
export async function createLabelled<T>(
  body: { fields: Record<string, unknown>; update?: Record<string, unknown> },
  label: string,
  send: (body: { fields: Record<string, unknown>; update?: Record<string, unknown> }) => Promise<T>,
  log: Logger,
): Promise<T> {
  try {
    return await send(withLabel(body, label));
  } catch (e) {
    if (!refusedOnlyLabels(e)) throw e;
    log.warn(
      `Jira refused the label ${label} (Labels is not on the project's create screen): creating without it; a retry after a lost answer cannot find this issue.`,
    );
    return send(body);
  }
}
