import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NonRetryableError } from "../../core/errors";
import { DEMO } from "../testing/fake-atlassian/seed";
import { JSM_DEMO } from "../testing/fake-atlassian/jsm/wiring";
import { contextFor, startJsmOpsFake, type JsmOpsFake } from "../testing/jsm-ops-harness";
import { approval as approvalResource } from "../resources-jsm";
import { approveWorkflow } from "./approve-workflow";

let h: JsmOpsFake;
const U = DEMO.users;
beforeAll(async () => {
  h = await startJsmOpsFake();
});
afterAll(() => h?.close());

const jira = () => h.atlassian.state.site(DEMO.cloudId)!;

/** A Jira issue in the service desk project (a customer request) with approvals. */
function request(summary: string) {
  const site = h.atlassian.state.site(DEMO.cloudId)!;
  const issue = site.createIssue(
    { projectId: JSM_DEMO.projectId, issueTypeId: JSM_DEMO.issueTypes.serviceRequest, summary, description: null, reporterId: U.ravi, labels: [] },
    U.ravi,
  );
  h.jsm.findRequest(issue.key, DEMO.cloudId);
  return issue.key;
}

const run = (config: Record<string, unknown>, accountId?: string) =>
  approveWorkflow.run(contextFor(approveWorkflow, h, config, h.connection({ accountId }))) as Promise<{ type: string; data: Record<string, unknown> }>;

describe("tracker.approveWorkflow", () => {
  it("approves the latest pending approval and emits tracker.approval", async () => {
    const key = request("New laptop");
    const first = h.jsm.addApproval(key, "Manager approval", [U.mia]);
    h.clock.offsetMs += 1000;
    const second = h.jsm.addApproval(key, "Finance approval", [U.mia, U.ravi]);
    const out = await run({ issueKey: key, decision: "approve" });
    expect(out.type).toBe("tracker.approval");
    expect(out.data).toMatchObject({ id: second.id, name: "Finance approval", finalDecision: "approved" });
    expect(out.data.completedDate).toEqual({ iso8601: expect.any(String), tracker: expect.any(String) });
    expect(
      (out.data.approvers as Array<{ approver: { accountId: string }; approverDecision: string }>).find((a) => a.approver.accountId === U.mia)
        ?.approverDecision,
    ).toBe("approved");
    expect(first.finalDecision).toBe("pending");
  });

  it("declines a specific approval, posting the public comment first", async () => {
    const key = request("Firewall change");
    const a = h.jsm.addApproval(key, "CAB", [U.mia]);
    h.jsm.addApproval(key, "Later one", [U.mia]);
    h.fake.received.length = 0;
    const out = await run({ issueKey: key, decision: "decline", approvalSelector: "specific", approval: a.id, comment: "Too risky this week" });
    expect(out.data).toMatchObject({ id: a.id, finalDecision: "declined" });
    const posts = h.fake.received.filter((r) => r.method === "POST").map((r) => r.path.split("/servicedeskapi")[1]);
    expect(posts).toEqual([`/request/${key}/comment`, `/request/${key}/approval/${a.id}`]);
    expect(h.jsm.findRequest(key)!.comments[0]).toMatchObject({ body: "Too risky this week", public: true });
  });

  it("a retried step (5xx on the decision) posts the comment once", async () => {
    const key = request("Retry me");
    const a = h.jsm.addApproval(key, "Retry approval", [U.mia]);
    h.atlassian.fail({ method: "POST", path: `/approval/${a.id}`, status: 503 });
    const ctx = contextFor(approveWorkflow, h, { issueKey: key, comment: "LGTM" });
    const err = await approveWorkflow.run(ctx).catch((e) => e);
    expect(err.retryable).toBe(true);
    Object.assign(ctx.run, { attempt: 2 });
    await expect(approveWorkflow.run(ctx)).resolves.toMatchObject({ data: { id: a.id, finalDecision: "approved" } });
    expect(h.jsm.findRequest(key)!.comments.map((x) => x.body)).toEqual(["LGTM"]);
  });

  it("fails clearly when the connected user is not an approver, without commenting", async () => {
    const key = request("Access to prod");
    h.jsm.addApproval(key, "Security approval", [U.ravi]);
    const err = await run({ issueKey: key, comment: "ok from me" }).catch((e) => e);
    expect(err).toBeInstanceOf(NonRetryableError);
    expect(err.message).toMatch(/not an approver.*Ravi Patel/);
    expect(h.jsm.findRequest(key)!.comments).toHaveLength(0);
  });

  it("fails clearly for an issue that is not a service-desk request", async () => {
    const site = h.atlassian.state.site(DEMO.cloudId)!;
    const plain = site.createIssue(
      { projectId: DEMO.projects.ops, issueTypeId: DEMO.issueTypes.task, summary: "plain task", description: null, reporterId: U.mia, labels: [] },
      U.mia,
    );
    await expect(run({ issueKey: plain.key })).rejects.toThrow(/not a service-desk customer request/);
  });

  it("fails when there is no pending approval, and a second decision of the same approval is refused (409)", async () => {
    const key = request("One approval");
    const a = h.jsm.addApproval(key, "Only", [U.mia]);
    await run({ issueKey: key });
    await expect(run({ issueKey: key })).rejects.toThrow(/no pending approval/);
    await expect(run({ issueKey: key, approvalSelector: "specific", approval: a.id })).rejects.toThrow(/already approved/);
    const raw = await fetch(`${h.fake.url}/ex/jira/${DEMO.cloudId}/rest/servicedeskapi/request/${key}/approval/${a.id}`, {
      method: "POST",
      headers: { authorization: `Bearer ${h.tokenFor()}`, "content-type": "application/json" },
      body: JSON.stringify({ decision: "approve" }),
    });
    expect(raw.status).toBe(409);
  });

  it("works on a customer request raised through the service desk API (fake contract: required fields checked)", async () => {
    const post = (body: unknown) =>
      fetch(`${h.fake.url}/ex/jira/${DEMO.cloudId}/rest/servicedeskapi/request`, {
        method: "POST",
        headers: { authorization: `Bearer ${h.tokenFor(U.ravi)}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const bad = await post({ serviceDeskId: JSM_DEMO.serviceDeskId, requestTypeId: JSM_DEMO.requestTypes.getHelp, requestFieldValues: {} });
    expect(bad.status).toBe(400);
    expect((await bad.json()).errorMessage).toMatch(/Summary/);
    const res = await post({
      serviceDeskId: JSM_DEMO.serviceDeskId,
      requestTypeId: JSM_DEMO.requestTypes.getHelp,
      requestFieldValues: { summary: "VPN access", description: "please" },
    });
    expect(res.status).toBe(201);
    const created = (await res.json()) as { issueKey: string; reporter: { accountId: string } };
    expect(created.reporter.accountId).toBe(U.ravi);
    expect(jira().issue(created.issueKey)!.summary).toBe("VPN access");
    h.jsm.addApproval(created.issueKey, "Manager", [U.mia]);
    await expect(run({ issueKey: created.issueKey })).resolves.toMatchObject({ data: { finalDecision: "approved" } });
  });

  it("needs an approval when 'specific' is selected: refused at save and at run time", async () => {
    const ctx = contextFor(approveWorkflow, h, { issueKey: "SD-1", approvalSelector: "specific" });
    expect(approveWorkflow.validate!(ctx.config, { connection: h.connection() })).toEqual([expect.objectContaining({ path: "approval" })]);
    await expect(approveWorkflow.run(ctx)).rejects.toThrow(/Approval is required/);
  });

  it("the approval picker lists the request's approvals", async () => {
    const key = request("Picker");
    h.jsm.addApproval(key, "First", [U.mia]);
    const res = await approvalResource({ connection: h.connection(), http: contextFor(approveWorkflow, h, { issueKey: key }).http, config: { issueKey: key } });
    expect(res.options.map((o) => o.label)).toEqual(["First"]);
  });
});
