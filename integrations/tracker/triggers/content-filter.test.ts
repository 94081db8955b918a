/**
 * The comment trigger's Content Filter runs inside the webhook ingress: a pattern that backtracks
 * catastrophically in JavaScript must not stall it. The poison case runs in a child process with a
 * deadline, so a regression fails this test instead of hanging the test run.
 */
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import type { IncomingDelivery, TriggerMatchContext } from "../../core/define";
import { onIssueComment } from "./on-issue-comment";

const delivery = (text: string): IncomingDelivery => {
  const body = {
    webhookEvent: "comment_created",
    timestamp: 1,
    comment: { id: "10040", body: { type: "doc", version: 1, content: [{ type: "paragraph", content: [{ type: "text", text }] }] } },
    issue: { id: "1", key: "OPS-1", self: "https://example.test/rest/api/3/issue/1", fields: { project: { key: "OPS" } } },
  };
  return { method: "POST", headers: {}, query: {}, rawBody: Buffer.from(JSON.stringify(body)), body };
};
const ctx = <C>(config: C) =>
  ({
    config,
    connection: undefined,
    intake: { id: "int_1", url: "http://127.0.0.1/hooks/t", token: "t" },
    now: () => new Date(),
  }) as unknown as TriggerMatchContext<C>;
const config = (contentFilter: string) => onIssueComment.config.parse({ project: "OPS", events: ["created"], contentFilter });

describe("comment trigger content filter", () => {
  it("matches with RE2 semantics: inline flags work, lookaround and backreferences are refused at save time with the reason", async () => {
    expect(await onIssueComment.match(delivery("Please ROLLBACK now"), ctx(config("(?i)rollback|deploy")))).toHaveLength(1);
    expect(await onIssueComment.match(delivery("Please ROLLBACK now"), ctx(config("^deploy")))).toEqual([]);
    const refused = onIssueComment.config.safeParse({ project: "OPS", events: ["created"], contentFilter: "deploy(?!ment)" });
    expect(refused.success).toBe(false);
    expect(onIssueComment.validate!({ project: "OPS", events: ["created"], contentFilter: "(a)\\1" } as never, {})).toEqual([
      { path: "contentFilter", message: expect.stringContaining("backreferences are not supported") },
    ]);
  });

  it("answers at once for a pattern that backtracks catastrophically in JavaScript (^(a+)+$ on 50,000 × a + !)", () => {
    const script = `
      import { onIssueComment } from "./integrations/tracker/triggers/on-issue-comment.ts";
      const text = "a".repeat(50000) + "!";
      const body = { webhookEvent: "comment_created", timestamp: 1, comment: { id: "1", body: { type: "doc", version: 1, content: [{ type: "paragraph", content: [{ type: "text", text }] }] } },
        issue: { id: "1", key: "OPS-1", self: "x", fields: { project: { key: "OPS" } } } };
      const config = onIssueComment.config.parse({ project: "OPS", events: ["created"], contentFilter: "^(a+)+$" });
      const events = await onIssueComment.match({ method: "POST", headers: {}, query: {}, rawBody: Buffer.from("{}"), body }, { config, now: () => new Date() });
      console.log(JSON.stringify({ matched: events.length }));`;
    const r = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { cwd: process.cwd(), encoding: "utf8", timeout: 20_000 });
    expect(r.signal, "the match did not finish within 20 s (the regex backtracked)").toBeNull();
    expect(r.stderr).toBe("");
    expect(JSON.parse(r.stdout.trim().split("\n").pop()!)).toEqual({ matched: 0 });
  });
});
