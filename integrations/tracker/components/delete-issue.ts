/** tracker.deleteIssue: deletes an issue; refuses when it has subtasks unless Delete Subtasks is on. */
import { z } from "zod";
import { defineComponent } from "../../core/define";
import { IntegrationHttpError, NonRetryableError, isRetryable, retryAfterOf } from "../../core/errors";
import { ui } from "../../core/ui-meta";
import { jiraClient } from "../jira-client";
import { issueKeyField, projectField } from "../schemas";

export const deleteIssueConfig = z.object({
  project: projectField(),
  issueKey: issueKeyField(),
  deleteSubtasks: z
    .boolean()
    .default(false)
    .meta(ui({ title: "Delete Subtasks", order: 3, description: "Required to delete an issue that has subtasks." })),
});

export const deleteIssueOutput = z.object({ deleted: z.literal(true), id: z.string(), key: z.string() });

export const deleteIssue = defineComponent({
  key: "tracker.deleteIssue",
  title: "Delete Issue",
  description: "Deletes a Jira issue (and its subtasks when allowed).",
  docs: "Deletes the issue. An issue with subtasks is deleted only with **Delete Subtasks** on (then its subtasks go too); otherwise the step fails saying so. Emits `tracker.issueDeleted` with `deleted: true`, `id` and `key`.",
  config: deleteIssueConfig,
  outputType: "tracker.issueDeleted",
  output: deleteIssueOutput,
  example: { deleted: true, id: "10002", key: "OPS-24" },
  async run(ctx) {
    const { config } = ctx;
    const jira = jiraClient(ctx.connection!, ctx.http);
    // Resumed after a transient failure of the DELETE itself: it may have gone through.
    const resumed = ctx.state as ResumeState | undefined;
    let target: { id: string; key: string };
    if (resumed) {
      const still = await jira.getIssue(resumed.key, { fields: "subtasks" }).catch((e) => {
        if (e instanceof IntegrationHttpError && e.status === 404) return undefined;
        throw e;
      });
      if (!still) return ctx.emit({ deleted: true as const, id: resumed.id, key: resumed.key });
      target = resumed;
    } else {
      const issue = await jira.getIssue(config.issueKey, { fields: "subtasks" });
      const subtasks = issue.fields.subtasks ?? [];
      if (subtasks.length && !config.deleteSubtasks) {
        throw new NonRetryableError(
          `Issue ${issue.key} has ${subtasks.length} subtask${subtasks.length > 1 ? "s" : ""} (${subtasks.map((s) => s.key).join(", ")}); turn on Delete Subtasks to delete it with its subtasks.`,
        );
      }
      target = { id: issue.id, key: issue.key };
    }
    try {
      await jira.deleteIssue(target.key, config.deleteSubtasks);
    } catch (e) {
      const attempts = (resumed?.attempts ?? 0) + 1;
      if (!isRetryable(e) || attempts > 5) throw e;
      const delay = retryAfterOf(e) ?? 1000 * 2 ** attempts;
      return ctx.wait(
        delay,
        { ...target, attempts } satisfies ResumeState,
        `Deleting ${target.key} failed (${(e as Error).message}); checking again in ${Math.round(delay / 1000)} s`,
      );
    }
    return ctx.emit({ deleted: true as const, id: target.id, key: target.key });
  },
});

interface ResumeState {
  id: string;
  key: string;
  attempts: number;
}
