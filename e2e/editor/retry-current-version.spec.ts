/**
 * Run recovery in the browser (issue #13), against a REAL Alertmanager and the fake Jira:
 * start → Create Silence → Create Issue fails on an issue type the project does not have. The fix is
 * made in the editor (version 2). In the run view, "Retry with v1" runs the same run again on the old
 * version (immediate feedback, followed live, fails the same way); "Retry with v2 (current)" opens a new
 * run at once that reuses the silence (Alertmanager still has exactly one) and creates the issue.
 */
import path from "node:path";
import { test, expect } from "../fixtures";
import { CanvasPage } from "../support/canvas-page";
import { connectTracker } from "../support/tracker-page";
import { startMetricsStack, type MetricsStack } from "../../integrations/metrics/testing/metrics-stack";
import { startFakeAtlassian, type FakeAtlassian } from "../../integrations/tracker/testing/fake-atlassian/server";
import { DEMO } from "../../integrations/tracker/testing/fake-atlassian/seed";

const suffix = Date.now().toString(36);
const COMMENT = `recovery e2e ${suffix}`;

let stack: MetricsStack | undefined;
let fake: FakeAtlassian | undefined;
test.beforeAll(async () => {
  stack = await startMetricsStack();
  fake = await startFakeAtlassian({ consentMode: "auto" });
});
test.afterAll(async () => {
  await stack?.stop();
  await fake?.stop();
});

async function silences(): Promise<Array<{ id: string; comment: string; status: { state: string } }>> {
  const res = await fetch(`${stack!.alertmanagerUrl}/api/v2/silences`);
  return ((await res.json()) as Array<{ id: string; comment: string; status: { state: string } }>).filter((s) => s.comment === COMMENT);
}

// SCREENSHOTS=1 refreshes the docs/screenshots/ images of this flow.
const SHOTS = process.env.SCREENSHOTS === "1";
const shot = (name: string) => path.join(process.cwd(), "docs", "screenshots", `${name}.png`);

test("after fixing the automation, retry with the current version reuses the silence and creates the issue", async ({ page, api, seed }) => {
  test.setTimeout(150_000);
  const ws = seed.workspaceId;
  const trackerName = `jira-${suffix}`;
  await connectTracker(page, { workspaceId: ws, name: trackerName, fakeUrl: fake!.url, consent: "auto" });
  const connections = (await (await api.get(`/api/v1/factories/${ws}/connections?limit=200`)).json()).data as Array<{ id: string; name: string }>;
  const tracker = connections.find((c) => c.name === trackerName)!.id;
  const metrics = await api.post(`/api/v1/factories/${ws}/connections`, {
    data: {
      integration: "metrics",
      name: `am-${suffix}`,
      config: { metricsBaseUrl: stack!.prometheusUrl, alertRouterBaseUrl: stack!.alertmanagerUrl, apiAuth: { type: "none" } },
    },
  });
  expect(metrics.status(), await metrics.text()).toBe(201);
  const metricsId = (await metrics.json()).id;

  const created = await api.post(`/api/v1/factories/${ws}/apps`, {
    data: {
      name: `Silence and ticket ${suffix}`,
      enabled: true,
      graph: {
        nodes: [
          { id: "n1", name: "start", key: "core.manual", config: {}, position: { x: 0, y: 0 } },
          {
            id: "n2",
            name: "silence",
            key: "metrics.createSilence",
            connectionId: metricsId,
            position: { x: 320, y: 0 },
            config: {
              matchers: [{ name: "alertname", value: "{{ $trigger.data.alertname }}", isRegex: false, isEqual: true }],
              duration: "1h",
              createdBy: "conveyor-e2e",
              comment: COMMENT,
            },
          },
          {
            id: "n3",
            name: "ticket",
            key: "tracker.createIssue",
            connectionId: tracker,
            position: { x: 640, y: 0 },
            config: { project: "OPS", issueType: "Story", summary: "{{ $trigger.data.alertname }} silenced ({{ $steps.silence.data.silenceID }})" },
          },
        ],
        edges: [
          { from: "n1", to: "n2" },
          { from: "n2", to: "n3" },
        ],
      },
    },
  });
  expect(created.status(), await created.text()).toBe(201);
  const app = await created.json();

  // 1. A run fails at Create Issue (OPS has no "Story"), after the silence was created.
  const started = await (await api.post(`/api/v1/factories/${ws}/apps/${app.id}/runs`, { data: { payload: { alertname: `DiskFull${suffix}` } } })).json();
  await expect
    .poll(async () => (await (await api.get(`/api/v1/factories/${ws}/apps/${app.id}/runs/${started.id}`)).json()).status, { timeout: 30_000 })
    .toBe("failed");
  expect(await silences()).toHaveLength(1);

  // 2. The fix, in the editor: the issue type picked from the project's list; saved as version 2.
  const canvas = new CanvasPage(page);
  await canvas.goto(ws, app.id);
  await canvas.select("ticket");
  await canvas.field("issueType").locator("button[aria-haspopup=listbox]").click();
  await page.getByRole("option", { name: /^Task/ }).first().click();
  await page.getByTestId("save").click();
  await expect(page.getByTestId("save-state")).toHaveText(/Saved · v2/, { timeout: 15_000 });

  // 3. The failed run offers both versions. v1 (the same run) gives feedback at once and fails again, live.
  await page.goto(`/w/${ws}/runs/${started.id}`);
  const header = page.locator("header:has(h1)");
  await expect(header.getByTestId("run-status")).toHaveAttribute("data-status", "failed");
  const ticketStep = page.getByTestId("step-ticket");
  await expect(ticketStep.getByTestId("step-error")).toContainText(/issue ?type/i);
  await expect(ticketStep.locator('section[aria-label="Attempts"] tbody tr')).toHaveCount(1);
  await expect(header.getByTestId("retry-current")).toHaveText("Retry with v2 (current)");
  await expect(header.getByTestId("retry-original")).toHaveText("Retry with v1 (original)");
  if (SHOTS) await page.screenshot({ path: shot("run-retry-choice") });
  await header.getByTestId("retry-original").click();
  await expect(page.getByText("Retrying from the failed step on version 1.")).toBeVisible();
  // Followed live, without a reload: the step's second attempt appears, and the run fails again the same way.
  await expect(ticketStep.locator('section[aria-label="Attempts"] tbody tr')).toHaveCount(2, { timeout: 30_000 });
  await expect(header.getByTestId("run-status")).toHaveAttribute("data-status", "failed", { timeout: 30_000 });
  await expect(ticketStep.getByTestId("step-error")).toContainText(/issue ?type/i);
  await expect(page).toHaveURL(new RegExp(`/runs/${started.id}$`));
  // Retried by hand: the time it sat failed is not a wait between (automatic) retries.
  await expect(page.getByTestId("run-timing")).toContainText("retried by hand after");
  await expect(page.getByTestId("run-timing")).not.toContainText("between automatic retries");
  expect(await silences()).toHaveLength(1); // the silence step did not run again

  // 4. v2 (current): a new run opens at once, is followed live, reuses the silence and creates the issue.
  await header.getByTestId("retry-current").click();
  await expect(page).not.toHaveURL(new RegExp(started.id));
  await expect(page).toHaveURL(/\/runs\/run_[a-z0-9]+$/);
  await expect(header.getByTestId("retry-of")).toHaveText(started.id);
  await expect(header.getByTestId("run-status")).toHaveAttribute("data-status", "succeeded", { timeout: 30_000 });
  await expect(header).toContainText("v2");
  const runCanvas = page.getByTestId("run-canvas");
  await runCanvas.locator('.react-flow__node [data-node-name="silence"]').click();
  await expect(page.getByTestId("step-silence").getByTestId("step-origin")).toContainText(`reused from run ${started.id}`);
  await expect(page.getByTestId("step-silence").getByTestId("step-origin")).toContainText("version 1");
  await runCanvas.locator('.react-flow__node [data-node-name="ticket"]').click();
  const output = page.getByTestId("step-ticket").getByTestId("step-output");
  await expect(output).toContainText('"key": "OPS-');
  const issueKey = /"key": "(OPS-\d+)"/.exec((await output.textContent())!)![1]!;

  const all = await silences();
  expect(all).toHaveLength(1); // one silence, not two
  const issue = fake!.state.site(DEMO.cloudId)!.issue(issueKey)!;
  expect(issue.summary).toBe(`DiskFull${suffix} silenced (${all[0]!.id})`);

  if (SHOTS) await page.screenshot({ path: shot("run-retry-current") });
  // 5. The failed run links to its retry and offers no second one.
  await page.goto(`/w/${ws}/runs/${started.id}`);
  await expect(header.getByTestId("retried-by")).toContainText("run_");
  await expect(header.getByTestId("retry-current")).toHaveCount(0);
});
