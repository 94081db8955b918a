import { z } from "zod";
import { defineComponent } from "../../core/define";
import { IntegrationHttpError, NonRetryableError } from "../../core/errors";
import { ui } from "../../core/ui-meta";
import { jsmClient, siteProblems, type Approval } from "../jsm-client";

export const approveWorkflowConfig = z.object({
  issueKey: z
    .string()
    .min(1)
    .meta(ui({ title: "Issue Key", description: "Key of the service-desk request", expression: true, order: 1 })),
  decision: z
    .enum(["approve", "decline"])
    .default("approve")
    .meta(ui({ title: "Decision", enumLabels: { approve: "Approve", decline: "Decline" }, order: 2 })),
  approvalSelector: z
    .enum(["latest", "specific"])
    .default("latest")
    .meta(ui({ title: "Approval Selector", enumLabels: { latest: "Latest pending approval", specific: "A specific approval" }, order: 3 })),
  approval: z
    .string()
    .optional()
    .meta(
      ui({
        title: "Approval",
        widget: "resource",
        resource: { type: "approvals", dependsOn: ["issueKey"], allowCustom: true },
        visibleWhen: { field: "approvalSelector", equals: "specific" },
        expression: true,
        order: 4,
      }),
    ),
  comment: z
    .string()
    .optional()
    .meta(ui({ title: "Comment", description: "Public customer comment posted before the decision", widget: "textarea", expression: true, order: 5 })),
});

const dateOut = z.object({ iso8601: z.string(), tracker: z.string() });
const userOut = z.object({ accountId: z.string(), displayName: z.string().optional(), emailAddress: z.string().optional() });

export const approvalOutput = z.object({
  id: z.string(),
  name: z.string(),
  finalDecision: z.string(),
  approvers: z.array(z.object({ approver: userOut, approverDecision: z.string() })),
  completedDate: dateOut.optional(),
});

function toApprovalOutput(a: Approval): z.infer<typeof approvalOutput> {
  return {
    id: a.id,
    name: a.name,
    finalDecision: a.finalDecision,
    approvers: a.approvers.map((x) => ({
      approver: {
        accountId: x.approver.accountId,
        displayName: x.approver.displayName,
        ...(x.approver.emailAddress ? { emailAddress: x.approver.emailAddress } : {}),
      },
      approverDecision: x.approverDecision,
    })),
    ...(a.completedDate ? { completedDate: { iso8601: a.completedDate.iso8601, tracker: a.completedDate.jira } } : {}),
  };
}

const approverNames = (a: Approval) => a.approvers.map((x) => x.approver.displayName ?? x.approver.accountId).join(", ") || "nobody";

function pick(approvals: Approval[], c: { approvalSelector: string; approval?: string }, key: string): Approval {
  if (c.approvalSelector === "specific") {
    const found = approvals.find((a) => a.id === c.approval);
    if (!found)
      throw new NonRetryableError(
        `Request ${key} has no approval with id ${c.approval} (it has: ${approvals.map((a) => `${a.id} ${a.name}`).join(", ") || "none"}).`,
      );
    return found;
  }
  const pending = approvals.filter((a) => a.finalDecision === "pending");
  pending.sort((a, b) => Date.parse(b.createdDate?.iso8601 ?? "") - Date.parse(a.createdDate?.iso8601 ?? "") || Number(b.id) - Number(a.id));
  if (!pending[0]) throw new NonRetryableError(`Request ${key} has no pending approval.`);
  return pending[0];
}

export const approveWorkflow = defineComponent({
  key: "tracker.approveWorkflow",
  title: "Approve Workflow",
  description: "Approves or declines an approval of a service-desk request, optionally posting a public comment first.",
  docs: "Works only on service-desk customer requests, and the connected user must be one of the approval's approvers.",
  config: approveWorkflowConfig,
  outputType: "tracker.approval",
  output: approvalOutput,
  example: {
    id: "1",
    name: "Change manager approval",
    finalDecision: "approved",
    approvers: [
      { approver: { accountId: "5b10ac8d82e05b22cc7d4ef5", displayName: "Mia Krystof", emailAddress: "mia@example.com" }, approverDecision: "approved" },
    ],
    completedDate: { iso8601: "2026-05-01T10:00:00+0000", tracker: "2026-05-01T10:00:00.000+0000" },
  },
  validate(config, { connection }) {
    const issues: Array<{ path: string; message: string }> = [];
    if (config.approvalSelector === "specific" && !config.approval?.trim())
      issues.push({ path: "approval", message: "Choose the approval to decide (or select the latest pending one)." });
    return [...issues, ...siteProblems(connection)];
  },
  async run(ctx) {
    const c = ctx.config;
    const key = c.issueKey.trim();
    if (c.approvalSelector === "specific" && !c.approval?.trim()) throw new NonRetryableError("Approval is required when a specific approval is selected.");
    const jsm = jsmClient(ctx.connection, ctx.http);
    const request = await jsm.getRequest(key);
    if (!request)
      throw new NonRetryableError(
        `${key} is not a service-desk customer request (or is not visible to the connected user); Approve Workflow only works on service-desk requests.`,
      );
    const approvals = await jsm.listApprovals(key);
    // A retry after the decision went through but its answer was lost: emit what the first attempt did.
    if (ctx.run.attempt > 1 && c.approvalSelector === "specific") {
      const done = approvals.find((a) => a.id === c.approval);
      if (done && done.finalDecision === (c.decision === "approve" ? "approved" : "declined")) return ctx.emit(toApprovalOutput(done));
    }
    const approval = pick(approvals, c, key);
    if (approval.finalDecision !== "pending") throw new NonRetryableError(`Approval "${approval.name}" on ${key} is already ${approval.finalDecision}.`);
    if (approval.canAnswerApproval === false) {
      throw new NonRetryableError(`The connected user is not an approver of "${approval.name}" on ${key} (approvers: ${approverNames(approval)}).`);
    }
    if (c.comment?.trim()) {
      // On a retry the comment may already be there: post it once.
      const already = ctx.run.attempt > 1 && (await jsm.listComments(key)).some((x) => x.public && x.body === c.comment);
      if (!already) await jsm.addPublicComment(key, c.comment);
    }
    try {
      return ctx.emit(toApprovalOutput(await jsm.decide(key, approval.id, c.decision)));
    } catch (e) {
      if (e instanceof IntegrationHttpError && e.status === 403)
        throw new NonRetryableError(`The connected user is not an approver of "${approval.name}" on ${key} (approvers: ${approverNames(approval)}).`);
      if (e instanceof IntegrationHttpError && e.status === 409) throw new NonRetryableError(`Approval "${approval.name}" on ${key} has already been decided.`);
      throw e;
    }
  },
});
