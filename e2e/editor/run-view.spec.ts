/**
 * Run by hand from the editor and watch the run view: live status on each node, the step's resolved
 * inputs and output. With SCREENSHOTS=1 it also refreshes docs/screenshots/ (canvas, node form,
 * trigger panel, run view).
 */
import path from "node:path";
import { test, expect } from "../fixtures";
import { CanvasPage } from "../support/canvas-page";

const SHOTS = process.env.SCREENSHOTS === "1";
const shot = (name: string) => path.join(process.cwd(), "docs", "screenshots", `${name}.png`);

test("run by hand and watch the run view", async ({ page, api, seed, probe }) => {
  const ws = seed.workspaceId;
  const created = await api.post(`/api/v1/factories/${ws}/apps`, {
    data: {
      name: "Health probe",
      enabled: true,
      graph: {
        nodes: [
          { id: "n1", name: "start", key: "core.manual", config: {}, position: { x: 0, y: 0 } },
          { id: "n2", name: "probe", key: "core.http", config: { method: "GET", url: `${probe}/health` }, position: { x: 320, y: 0 } },
        ],
        edges: [{ from: "n1", to: "n2" }],
      },
    },
  });
  expect(created.status(), await created.text()).toBe(201);
  const app = await created.json();

  const canvas = new CanvasPage(page);
  await canvas.goto(ws, app.id);
  // Keyboard: a node is focusable and Enter opens its panel.
  await page.locator('.react-flow__node:has([data-node-name="probe"])').focus();
  await page.keyboard.press("Enter");
  await expect(canvas.panel()).toBeVisible();
  await expect(page.getByTestId("node-name-input")).toHaveValue("probe");
  await page.keyboard.press("Escape");
  await page.getByTestId("run-now").click();
  await page.getByLabel("Event data (JSON)").fill('{ "reason": "e2e" }');
  await page.getByTestId("start-run").click();
  await expect(page).toHaveURL(/\/runs\/run_/);
  await expect(page.getByTestId("run-status").first()).toHaveAttribute("data-status", /succeeded|failed/, { timeout: 30_000 });
  await expect(page.locator('[data-node-name="probe"] [data-testid="node-run-status"]')).toHaveAttribute("data-status", "succeeded");
  await page.locator('.react-flow__node:has([data-node-name="probe"])').click();
  await expect(page.getByTestId("step-probe").getByTestId("step-output")).toContainText('"status": 200');
  await expect(page.getByTestId("step-probe").getByTestId("step-input")).toContainText("/health");
  if (SHOTS) await page.screenshot({ path: shot("run-view") });
  // The trigger event carries the payload given in the run dialog.
  await page.locator('.react-flow__node:has([data-node-name="start"])').click();
  await expect(page.getByTestId("step-panel")).toContainText('"reason": "e2e"');

  // The runs list shows it.
  await page.getByRole("link", { name: "Back to runs" }).click();
  await expect(page.getByRole("link", { name: /Run run_/ }).first()).toBeVisible();

  // What cannot be found says so and leads back (these were dead ends: red text, or Next's bare 404).
  await page.goto(`/w/${ws}/runs/run_doesnotexist`);
  await expect(page.getByTestId("load-error")).toContainText("run_doesnotexist");
  await page.getByTestId("load-error").getByRole("link", { name: "Back to runs" }).click();
  await expect(page).toHaveURL(new RegExp(`/w/${ws}/runs$`));
  await page.goto(`/w/${ws}/automations/aut_doesnotexist`);
  await expect(page.getByTestId("load-error").getByRole("link", { name: "Back to automations" })).toBeVisible();
  await page.goto("/w/ws_doesnotexist/automations");
  await page.getByTestId("not-found").getByRole("link", { name: "Go to your workspace" }).click();
  await expect(page).toHaveURL(/\/w\/ws_[a-z0-9]+\/automations/);
});

test("screenshots of the canvas, a node form and the trigger panel", async ({ page, api, seed }) => {
  test.skip(!SHOTS, "set SCREENSHOTS=1 to refresh docs/screenshots");
  const ws = seed.workspaceId;
  const conn = await page.request.post("/api/trpc/connections.create", {
    data: {
      workspaceId: ws,
      integration: "metrics",
      name: "prod prometheus",
      config: {
        metricsBaseUrl: "http://prometheus:9090",
        alertRouterBaseUrl: "http://alertmanager:9093",
        apiAuth: { type: "none" },
        webhookSecret: "s3cret-value",
      },
    },
  });
  expect(conn.status(), await conn.text()).toBe(200);
  const connectionId = (await conn.json()).result.data.id;
  const created = await api.post(`/api/v1/factories/${ws}/apps`, {
    data: {
      name: "Silence disk alerts during maintenance",
      enabled: true,
      graph: {
        nodes: [
          {
            id: "n1",
            name: "onAlert",
            key: "metrics.onAlert",
            connectionId,
            config: { statuses: ["firing"], alertNames: ["DiskFull"] },
            position: { x: 0, y: 80 },
          },
          {
            id: "n2",
            name: "silence",
            key: "metrics.createSilence",
            connectionId,
            config: {
              matchers: [
                { name: "alertname", value: "{{ $trigger.data.labels.alertname }}", isRegex: false, isEqual: true },
                { name: "instance", value: "{{ $trigger.data.labels.instance }}", isRegex: false, isEqual: true },
              ],
              duration: "2h",
              createdBy: "conveyor",
              comment: "Maintenance window",
            },
            position: { x: 340, y: 0 },
          },
          {
            id: "n3",
            name: "check",
            key: "metrics.getSilence",
            connectionId,
            config: { silence: "{{ $steps.silence.data.silenceID }}" },
            position: { x: 680, y: 0 },
          },
          { id: "n4", name: "cpu", key: "metrics.query", connectionId, config: { query: "rate(node_cpu_seconds_total[5m])" }, position: { x: 340, y: 200 } },
        ],
        edges: [
          { from: "n1", to: "n2" },
          { from: "n2", to: "n3" },
          { from: "n1", to: "n4" },
        ],
        notes: [
          { id: "note1", text: "Alertmanager posts here.\nOne run per firing DiskFull alert.", position: { x: 0, y: -80 }, size: { width: 240, height: 90 } },
        ],
      },
    },
  });
  expect(created.status(), await created.text()).toBe(201);
  const app = await created.json();
  const canvas = new CanvasPage(page);
  await canvas.goto(ws, app.id);
  await canvas.fit();
  await page.screenshot({ path: shot("canvas") });
  await canvas.select("silence");
  await page.screenshot({ path: shot("node-form") });
  await canvas.select("onAlert");
  await page.getByTestId("panel-tab-trigger").click();
  await expect(page.getByTestId("trigger-url")).toBeVisible();
  await page.screenshot({ path: shot("trigger-panel") });
});
