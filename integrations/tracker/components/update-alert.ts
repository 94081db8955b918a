import { z } from "zod";
import { defineComponent } from "../../core/define";
import { NonRetryableError } from "../../core/errors";
import { ui } from "../../core/ui-meta";
import { opsClient, opsGateIssues, type OpsClient } from "../ops-client";
import { PRIORITIES, alertField, alertOutput, exampleAlert, firstLook, isWait, pollRequest, toAlertOutput, type PollState } from "../ops-schemas";

const UNSET_HELP = "P1 (highest) to P5, or unset: no priority change is sent (the operations API has no way to clear an alert's priority).";
const section = (title: string, order: number, extra: Parameters<typeof ui>[0] = {}) => ui({ title, togglable: true, expression: true, order, ...extra });

export const updateAlertConfig = z.object({
  alert: alertField,
  description: z
    .string()
    .max(15000)
    .optional()
    .meta(section("Description", 10, { widget: "textarea" })),
  message: z.string().min(1).max(130).optional().meta(section("Message", 11)),
  priority: z
    .enum(PRIORITIES)
    .nullable()
    .optional()
    .meta(section("Priority", 12, { expression: false, description: UNSET_HELP, prefill: null })),
  assignment: z
    .string()
    .min(1)
    .optional()
    .meta(section("Assignment", 13, { description: "Account id of the user to assign", widget: "resource", resource: { type: "users", allowCustom: true } })),
  newNote: z
    .string()
    .min(1)
    .max(25000)
    .optional()
    .meta(section("New note", 14, { widget: "textarea" })),
  updateNote: z
    .object({
      noteId: z
        .string()
        .min(1)
        .meta(ui({ title: "Note ID", expression: true })),
      note: z
        .string()
        .min(1)
        .max(25000)
        .meta(ui({ title: "Note", widget: "textarea", expression: true })),
    })
    .optional()
    .meta(section("Update existing note", 15, { expression: false })),
  acknowledge: z
    .boolean()
    .optional()
    .meta(section("Acknowledge alert", 16, { expression: false })),
  close: z
    .boolean()
    .optional()
    .meta(section("Close alert", 17, { expression: false })),
});

type Config = z.output<typeof updateAlertConfig>;

/** Sends every enabled section in a fixed order; returns the request ids of the asynchronous ones. */
async function sendSections(ops: OpsClient, id: string, c: Config): Promise<string[]> {
  const ids: string[] = [];
  if (c.description !== undefined) ids.push((await ops.setDescription(id, c.description)).requestId);
  if (c.message !== undefined) ids.push((await ops.setMessage(id, c.message)).requestId);
  if (c.priority) ids.push((await ops.setPriority(id, c.priority)).requestId); // null: unset, nothing to send
  if (c.assignment !== undefined) ids.push((await ops.assign(id, c.assignment)).requestId);
  if (c.newNote !== undefined) await ops.addNote(id, c.newNote);
  if (c.updateNote !== undefined) await ops.updateNote(id, c.updateNote.noteId, c.updateNote.note);
  if (c.acknowledge) ids.push((await ops.acknowledge(id)).requestId);
  if (c.close) ids.push((await ops.close(id)).requestId);
  return ids;
}

export const updateAlert = defineComponent({
  key: "tracker.updateAlert",
  title: "Update Alert",
  description: "Changes an operations alert (only the enabled sections are sent), optionally acknowledges or closes it, and emits the fresh alert.",
  docs: "**Alert** is the alert's id, or its alias: give Create Alert an alias made from the Alertmanager alert (for example `{{ $trigger.data.fingerprint }}-{{ $trigger.data.startsAt }}`, the same in the firing and the resolved notification of one episode) and the run of the resolved notification can close the alert the firing one created.",
  config: updateAlertConfig,
  outputType: "tracker.alert.updated",
  output: alertOutput,
  example: { ...exampleAlert, acknowledged: true, status: "acked" },
  validate: (_config, { connection }) => opsGateIssues(connection),
  async run(ctx) {
    const ops = opsClient(ctx.connection, ctx.http);
    let st = ctx.state as PollState | undefined;
    const first = !st;
    let alertId = st?.alertId ?? ctx.config.alert.trim();
    if (!st) {
      // Fail early and clearly for an unknown alert (the asynchronous calls would accept it). Not an id: an alias,
      // so a later run (the alert's resolve) can reach the alert an earlier one created.
      const ref = alertId;
      const found = await ops.getAlert(ref).catch(async (e) => {
        if (e?.status !== 404) throw e;
        const byAlias = await ops.getAlertByAlias(ref);
        if (!byAlias) throw new NonRetryableError(`No alert has the id or alias ${ref}.`);
        return byAlias;
      });
      alertId = found.id;
      const requestIds = await sendSections(ops, alertId, ctx.config);
      const last = requestIds.at(-1);
      if (last) st = { requestId: last, startedAt: ctx.now().getTime(), polls: 0, alertId };
    }
    if (st) {
      // Requests are processed in order: once the last one is, the alert reflects every section.
      const status = await (first ? firstLook : pollRequest)(ctx, ops, st, "Updating the alert");
      if (isWait(status)) return status;
    }
    return ctx.emit(toAlertOutput(await ops.getAlert(alertId)));
  },
});
