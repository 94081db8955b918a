/**
 * Delivers dynamic-webhook POSTs for issue events, as Jira does: one POST per app URL with the matched
 * webhook ids, `X-Atlassian-Webhook-Identifier` (same across retries), `X-Atlassian-Webhook-Retry` on
 * retries, and `Authorization: Bearer <JWT>` (HS256, signed with the app's client secret; claims unconfirmed
 * upstream, see UPSTREAM §D.15/§H). Retries on 408, 409, 425, 429, 5xx and network failures.
 */
import { createHmac, randomUUID } from "node:crypto";
import { issueBean, commentBean, userBean } from "./jira/render";
import { matchesJql, parseJql } from "./jira/jql";
import type { IssueEvent, JiraSite } from "./site";
import type { FakeAtlassianState } from "./state";

export interface WebhookDelivery {
  id: string;
  url: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
  attempts: Array<{ status?: number; error?: string }>;
}

const RETRY = (s: number) => s === 408 || s === 409 || s === 425 || s === 429 || s >= 500;

export function signJwt(secret: string, claims: Record<string, unknown>): string {
  const enc = (o: unknown) => Buffer.from(JSON.stringify(o)).toString("base64url");
  const head = `${enc({ alg: "HS256", typ: "JWT" })}.${enc(claims)}`;
  return `${head}.${createHmac("sha256", secret).update(head).digest("base64url")}`;
}

export class WebhookDispatcher {
  deliveries: WebhookDelivery[] = [];
  private pending = new Set<Promise<void>>();

  constructor(private state: FakeAtlassianState) {
    state.onIssueEvent((site, event) => this.dispatch(site, event));
  }

  private payload(site: JiraSite, event: IssueEvent, ids: number[]): Record<string, unknown> {
    const issue = issueBean(site, event.issue);
    if (event.webhookEvent.startsWith("comment_")) {
      const f = issue.fields as Record<string, unknown>;
      return {
        timestamp: event.timestamp,
        webhookEvent: event.webhookEvent,
        matchedWebhookIds: ids,
        comment: commentBean(site, event.comment!),
        issue: {
          id: issue.id,
          key: issue.key,
          self: issue.self,
          fields: { summary: f.summary, issuetype: f.issuetype, project: f.project, assignee: f.assignee, priority: f.priority, status: f.status },
        },
      };
    }
    return {
      timestamp: event.timestamp,
      webhookEvent: event.webhookEvent,
      issue_event_type_name: event.issueEventTypeName,
      matchedWebhookIds: ids,
      user: userBean(site, event.accountId),
      issue,
      ...(event.changelog ? { changelog: event.changelog } : {}),
      ...(event.comment ? { comment: commentBean(site, event.comment) } : {}),
    };
  }

  private dispatch(site: JiraSite, event: IssueEvent) {
    const now = this.state.now().getTime();
    const byTarget = new Map<string, number[]>();
    for (const w of site.webhooks.values()) {
      if (w.expiresAt <= now || !w.events.includes(event.webhookEvent)) continue;
      const app = this.state.apps.get(w.clientId);
      if (!app || (app.distribution === "private" && app.ownerAccountId && w.ownerAccountId !== app.ownerAccountId)) continue;
      if (!matchesJql(site, event.issue, parseJql(w.jqlFilter), now)) continue;
      if (w.fieldIdsFilter?.length && event.webhookEvent === "jira:issue_updated") {
        if (!event.changelog?.items.some((i) => w.fieldIdsFilter!.includes(i.fieldId))) continue;
      }
      const key = `${w.clientId}\n${w.url}`;
      byTarget.set(key, [...(byTarget.get(key) ?? []), w.id]);
    }
    for (const [key, ids] of byTarget) {
      const [clientId, url] = key.split("\n") as [string, string];
      const secret = this.state.apps.get(clientId)!.clientSecret;
      const iat = Math.floor(now / 1000);
      const delivery: WebhookDelivery = {
        id: randomUUID(),
        url,
        headers: {
          "content-type": "application/json",
          "user-agent": "Atlassian Webhook HTTP Client",
          "x-atlassian-webhook-flow": "Primary",
          authorization: `Bearer ${signJwt(secret, { iss: clientId, iat, exp: iat + 180, context: { cloudId: site.cloudId } })}`,
        },
        body: this.payload(site, event, ids),
        attempts: [],
      };
      delivery.headers["x-atlassian-webhook-identifier"] = delivery.id;
      this.deliveries.push(delivery);
      this.track(this.send(delivery, 0));
    }
  }

  private track(p: Promise<void>) {
    this.pending.add(p);
    void p.finally(() => this.pending.delete(p));
  }

  private async send(d: WebhookDelivery, retry: number): Promise<void> {
    const headers = { ...d.headers, ...(retry ? { "x-atlassian-webhook-retry": String(retry) } : {}) };
    let status: number | undefined;
    try {
      const res = await fetch(d.url, { method: "POST", headers, body: JSON.stringify(d.body), signal: AbortSignal.timeout(10_000) });
      status = res.status;
      await res.arrayBuffer().catch(() => undefined);
      d.attempts.push({ status });
    } catch (e) {
      d.attempts.push({ error: (e as Error).message });
    }
    if ((status === undefined || RETRY(status)) && retry < this.state.webhookMaxRetries) {
      await new Promise((r) => setTimeout(r, this.state.webhookRetryDelayMs * 2 ** retry));
      return this.send(d, retry + 1);
    }
  }

  /** Sends a delivery again with the same identifier (as Jira's duplicate deliveries do). */
  redeliver(d: WebhookDelivery): Promise<void> {
    const p = this.send(d, 1);
    this.track(p);
    return p;
  }

  /** Resolves once every delivery started so far (with its retries) has finished. */
  async settled(): Promise<void> {
    while (this.pending.size) await Promise.all([...this.pending]);
  }
}
