/**
 * The README's alert-to-ticket path, as a first-week user follows it ("From alert to ticket and back",
 * Jira issue, with Resolved selected too): REAL Prometheus + Alertmanager (Debian packages, on loopback) and the fake Atlassian.
 * Both connections are made on the Connections page (tracker through the fake's consent page); the
 * automation `On Alert (firing + resolved) → Filter (firing) → Create Issue` is built by clicking the
 * building blocks (click-to-add wires each to the selected node), with the Summary typed as `{{ … }}`;
 * saved and enabled. The receiver + route is copied from the trigger panel with its Copy button, the
 * connection's Webhook Secret pasted in, and Alertmanager reloaded with it. A firing alert creates one
 * issue in the fake with the alert's labels and annotation; its resolve runs again, the filter stops the
 * branch, and no second issue appears.
 */
import { test, expect } from "../fixtures";
import { CanvasPage } from "../support/canvas-page";
import { createMetricsConnection } from "../support/metrics-page";
import { connectTracker } from "../support/tracker-page";
import { startFakeAtlassian, type FakeAtlassian } from "../../integrations/tracker/testing/fake-atlassian/server";
import { DEMO } from "../../integrations/tracker/testing/fake-atlassian/seed";
import { startMetricsStack, type MetricsStack } from "../../integrations/metrics/testing/metrics-stack";
import { SECRET_PLACEHOLDER } from "../../integrations/metrics/triggers/setup-snippet";

const suffix = Date.now().toString(36);
const ALERT = `E2EDiskFull${suffix}`;
const SECRET = `e2e-issue-secret-${suffix}-0123456789abcdef`;
const rule = (firing: boolean) => ({
  alert: ALERT,
  expr: `label_replace(vector(1), "instance", "db-1:9100", "", "") ${firing ? ">" : "<"} 0`,
  labels: { severity: "page" },
  annotations: { summary: "Disk on db-1 is 95% full" },
});

let stack: MetricsStack | undefined;
let fake: FakeAtlassian | undefined;
test.beforeAll(async () => {
  [stack, fake] = await Promise.all([startMetricsStack(), startFakeAtlassian({ consentMode: "page" })]);
});
test.afterAll(async () => {
  await Promise.all([stack?.stop(), fake?.stop()]);
});

test("a real Alertmanager alert creates a Jira issue with its details; its resolve runs and creates nothing", async ({ page, seed }) => {
  test.setTimeout(150_000);
  const ws = seed.workspaceId;
  const jira = `Acme Jira ${suffix}`;
  const metrics = `Prod metrics ${suffix}`;
  const issuesOfAlert = () => [...fake!.state.site(DEMO.cloudId)!.issues.values()].filter((i) => i.summary.startsWith(ALERT));

  // 1. Connections: the tracker through the consent page, the metrics servers tested live.
  await connectTracker(page, { workspaceId: ws, name: jira, fakeUrl: fake!.url, consent: "page" });
  await createMetricsConnection(page, ws, {
    name: metrics,
    metricsBaseUrl: stack!.prometheusUrl,
    alertRouterBaseUrl: stack!.alertmanagerUrl,
    webhookSecret: SECRET,
  });

  // 2. On Alert → Filter → Create Issue, each added by clicking its building block.
  const canvas = new CanvasPage(page);
  const automationId = await canvas.create(ws, `Alert to issue ${suffix}`);
  await canvas.clickPalette("metrics.onAlert");
  await canvas.panel().getByTestId("node-connection-select").selectOption({ label: metrics });
  await canvas.field("statuses").getByRole("button", { name: "Resolved" }).click();
  await expect(canvas.field("statuses").getByRole("button", { name: "Firing" })).toHaveAttribute("aria-pressed", "true");
  await canvas.clickPalette("core.filter");
  await canvas.field("condition").getByRole("textbox").fill("{{ $trigger.data.status = 'firing' }}");
  await page.getByTestId("palette-search").fill("create issue");
  await canvas.clickPalette("tracker.createIssue");
  await expect(canvas.edges()).toHaveCount(2);
  expect(await canvas.hasEdge("onAlert", "filter")).toBe(true);
  expect(await canvas.hasEdge("filter", "createIssue")).toBe(true);
  await canvas.panel().getByTestId("node-connection-select").selectOption({ label: jira });
  const pick = async (field: string, option: RegExp) => {
    await canvas.field(field).locator("button[aria-haspopup=listbox]").click();
    await page.getByRole("option", { name: option }).click();
  };
  await pick("project", /Operations \(OPS\)/);
  await pick("issueType", /^Task$/);
  // Typing `{{` in a fixed field switches it to an expression.
  await canvas.field("summary").getByRole("textbox").fill("{{ $trigger.data.labels.alertname }} on {{ $trigger.data.labels.instance }}");
  await canvas.field("description").getByRole("textbox").fill("{{ $trigger.data.annotations.summary }} (severity {{ $trigger.data.labels.severity }})");

  // 3. Save and enable.
  await canvas.save();
  await expect(page.getByTestId("save-state")).toHaveText(/Saved · v\d+/);
  await expect(page.getByTestId("problem-count")).toHaveCount(0);
  await page.getByTestId("enabled-switch").click();
  await expect(page.getByTestId("enabled-switch")).toHaveAttribute("aria-checked", "true");

  // 4. The receiver + route, copied from the trigger panel; the user pastes the Webhook Secret into it.
  await canvas.select("onAlert");
  await page.getByTestId("panel-tab-trigger").click();
  const url = await page.getByTestId("trigger-url").inputValue();
  await page.getByTestId("copy-alertmanager-snippet").first().click();
  await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toContain(url);
  const snippet = await page.evaluate(() => navigator.clipboard.readText());
  expect(snippet).toContain("send_resolved: true");
  expect(snippet).toContain(SECRET_PLACEHOLDER);
  await stack!.setWebhook({ snippet: snippet.replace(SECRET_PLACEHOLDER, SECRET) });

  // 5. The alert fires: one run, one issue with the alert's details.
  await stack!.setRules([rule(true)]);
  await expect.poll(() => issuesOfAlert().length, { timeout: 45_000, message: "the firing alert to create an issue" }).toBe(1);
  const [issue] = issuesOfAlert();
  expect(issue!.summary).toBe(`${ALERT} on db-1:9100`);
  expect(JSON.stringify(issue!.description)).toContain("Disk on db-1 is 95% full (severity page)");
  expect(fake!.state.site(DEMO.cloudId)!.projects.get(issue!.projectId)!.key).toBe("OPS");

  await page.goto(`/w/${ws}/runs?automationId=${automationId}`);
  const rows = page.locator('tr[data-testid^="run-row-"]');
  await expect(rows).toHaveCount(1);
  await expect(rows.first().getByTestId("run-status")).toHaveAttribute("data-status", "succeeded");
  await rows
    .first()
    .getByRole("link", { name: /^Run run_/ })
    .click();
  await page.getByTestId("run-canvas").locator('.react-flow__node [data-node-name="createIssue"]').click();
  await expect(page.getByTestId("step-createIssue").getByTestId("step-output")).toContainText(`"key": "${issue!.key}"`);

  // 6. The alert resolves: a second run, stopped by the filter; still one issue.
  await stack!.setRules([rule(false)]);
  await page.goto(`/w/${ws}/runs?automationId=${automationId}`);
  await expect(rows).toHaveCount(2, { timeout: 45_000 });
  await expect(rows.first().getByTestId("run-status")).toHaveAttribute("data-status", "succeeded");
  await rows
    .first()
    .getByRole("link", { name: /^Run run_/ })
    .click();
  const runCanvas = page.getByTestId("run-canvas");
  await expect(runCanvas.locator('.react-flow__node:has([data-node-name="filter"])').getByTestId("node-run-status")).toHaveAttribute("data-status", "skipped");
  await runCanvas.locator('.react-flow__node [data-node-name="filter"]').click();
  await expect(page.getByTestId("step-filter").getByTestId("step-input")).toContainText('"condition": false');
  expect(issuesOfAlert()).toHaveLength(1);
});
