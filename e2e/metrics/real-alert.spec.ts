/**
 * The real alert path through the browser: REAL Prometheus + Alertmanager (Debian packages, started
 * by the metrics test helper on loopback). The metrics connection is made in the UI and tested against
 * them; `metrics.onAlert → metrics.createSilence` is built with real pointer drags from the palette,
 * the matcher value is picked from the expression autocomplete, the automation is saved and enabled,
 * and the webhook URL is copied from the trigger panel and read back from the clipboard. Alertmanager
 * is then pointed at that URL with the connection's bearer secret; a rule that is already firing gets
 * delivered, the run succeeds in the run view with the silence id shown, and Alertmanager lists that
 * silence as active and mutes the alert with it.
 */
import { test, expect } from "../fixtures";
import { CanvasPage } from "../support/canvas-page";
import { alertmanagerAlerts, alertmanagerSilence, createMetricsConnection } from "../support/metrics-page";
import { startMetricsStack, type MetricsStack } from "../../integrations/metrics/testing/metrics-stack";

const suffix = Date.now().toString(36);
const ALERT = `E2EBrowserDiskFull${suffix}`;
const SECRET = `e2e-webhook-secret-${suffix}-0123456789`;
const CONNECTION = `e2e metrics ${suffix}`;

let stack: MetricsStack | undefined;
test.beforeAll(async () => {
  // The rule fires from the first evaluation; with no receiver for it yet, Alertmanager just holds the
  // alert. Once the webhook receiver is configured (reload), its new dispatcher routes the held alert.
  stack = await startMetricsStack({
    rules: [
      {
        alert: ALERT,
        expr: 'label_replace(vector(1), "instance", "db-1:9100", "", "") > 0',
        labels: { severity: "page" },
        annotations: { summary: "Disk almost full" },
      },
    ],
  });
});
test.afterAll(async () => {
  await stack?.stop();
});

test("a real Alertmanager notification runs onAlert → createSilence built in the editor; the run view shows the silence", async ({ page, seed }) => {
  test.setTimeout(90_000);
  const ws = seed.workspaceId;
  const am = stack!.alertmanagerUrl;

  // 1. The metrics connection, made and tested in the UI against the real servers.
  await createMetricsConnection(page, ws, { name: CONNECTION, metricsBaseUrl: stack!.prometheusUrl, alertRouterBaseUrl: am, webhookSecret: SECRET });

  // 2. A new automation, built with real drags from the palette and a drag between handles.
  const canvas = new CanvasPage(page);
  const automationId = await canvas.create(ws, `Silence ${ALERT}`);
  await canvas.dragFromPalette("metrics.onAlert", { x: 200, y: 220 });
  await canvas.dragFromPalette("metrics.createSilence", { x: 560, y: 260 });
  await canvas.connect("onAlert", "createSilence");
  await expect(canvas.edges()).toHaveCount(1);

  // 3. Trigger: firing alerts through this connection.
  await canvas.select("onAlert");
  await canvas.panel().getByTestId("node-connection-select").selectOption({ label: CONNECTION });
  // Statuses is required; a new node starts with it prefilled to firing.
  await expect(canvas.field("statuses").getByRole("button", { name: "Firing" })).toHaveAttribute("aria-pressed", "true");
  await expect(canvas.field("statuses").getByRole("button", { name: "Resolved" })).toHaveAttribute("aria-pressed", "false");

  // 4. Silence: matcher alertname = an expression picked from the autocomplete; 1h; author; comment.
  await canvas.select("createSilence");
  await canvas.panel().getByTestId("node-connection-select").selectOption({ label: CONNECTION });
  await canvas
    .field("matchers")
    .getByRole("button", { name: /Add matcher/ })
    .click();
  await canvas.field("matchers.0.name").getByRole("textbox").fill("alertname");
  await canvas.pickExpression("matchers.0.value", "$trigger.data.lab", "$trigger.data.labels.alertname");
  await canvas.field("duration").getByRole("textbox").fill("1h");
  await canvas.field("createdBy").getByRole("textbox").fill("conveyor-e2e");
  await canvas.field("comment").getByRole("textbox").fill(`auto-silenced from the browser ${suffix}`);

  // 5. Save (Ctrl/Cmd+S) and enable.
  await canvas.save();
  await expect(page.getByTestId("save-state")).toHaveText(/Saved · v\d+/);
  await expect(canvas.nodeByName("createSilence").getByTestId("node-problems")).toHaveCount(0);
  await page.getByTestId("enabled-switch").click();
  await expect(page.getByTestId("enabled-switch")).toHaveAttribute("aria-checked", "true");

  // 6. Copy the webhook URL from the trigger panel; read it from the clipboard.
  await canvas.select("onAlert");
  await page.getByTestId("panel-tab-trigger").click();
  const shown = await page.getByTestId("trigger-url").inputValue();
  expect(shown).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/hooks\/\S+$/);
  await page.getByTestId("copy-trigger-url").click();
  await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(shown);
  const webhookUrl = await page.evaluate(() => navigator.clipboard.readText());
  await expect(page.getByTestId("alertmanager-snippet").first()).toContainText(webhookUrl); // the receiver + route snippet

  // 7. Alertmanager (holding the firing alert) gets a receiver posting to that URL with the bearer secret.
  await expect
    .poll(async () => (await alertmanagerAlerts(am, ALERT)).length, { timeout: 20_000, message: "Prometheus to hand the alert to Alertmanager" })
    .toBe(1);
  await stack!.setWebhook({ url: webhookUrl, secret: SECRET, sendResolved: false });

  // 8. The run appears and succeeds in the runs list.
  await page.goto(`/w/${ws}/runs?automationId=${automationId}`);
  const rows = page.locator('tr[data-testid^="run-row-"]');
  await expect(rows.first().getByTestId("run-status")).toHaveAttribute("data-status", "succeeded", { timeout: 30_000 });
  await expect(rows).toHaveCount(1);

  // 9. The run view: run succeeded, both nodes succeeded on the canvas, the silence step shows its id.
  await rows
    .first()
    .getByRole("link", { name: /^Run run_/ })
    .click();
  await expect(page).toHaveURL(/\/runs\/run_[a-z0-9]+$/);
  await expect(page.locator("header:has(h1)").getByTestId("run-status")).toHaveAttribute("data-status", "succeeded");
  const runCanvas = page.getByTestId("run-canvas");
  for (const name of ["onAlert", "createSilence"]) {
    await expect(runCanvas.locator(`.react-flow__node:has([data-node-name="${name}"])`).getByTestId("node-run-status")).toHaveAttribute(
      "data-status",
      "succeeded",
    );
  }
  await runCanvas.locator('.react-flow__node [data-node-name="createSilence"]').click();
  const step = page.getByTestId("step-createSilence");
  await expect(step.getByTestId("run-status")).toHaveAttribute("data-status", "succeeded");
  const output = step.getByTestId("step-output");
  await expect(output).toContainText('"silenceID"');
  const envelope = JSON.parse((await output.textContent())!) as { type: string; data: { silenceID: string; status: string; matchers: unknown[] } };
  expect(envelope.type).toBe("metrics.silence");
  expect(envelope.data.silenceID).toMatch(/^[0-9a-f-]{36}$/);
  expect(envelope.data.matchers).toEqual([{ name: "alertname", value: ALERT, isRegex: false, isEqual: true }]);
  await expect(step.getByTestId("step-input")).toContainText(`"value": "${ALERT}"`);

  // 10. Alertmanager has that silence active and mutes the alert with it.
  const silence = await alertmanagerSilence(am, envelope.data.silenceID);
  expect(silence).toMatchObject({ status: { state: "active" }, createdBy: "conveyor-e2e", comment: `auto-silenced from the browser ${suffix}` });
  expect(silence.matchers).toEqual([expect.objectContaining({ name: "alertname", value: ALERT, isRegex: false })]);
  const hours = (Date.parse(silence.endsAt) - Date.parse(silence.startsAt)) / 3_600_000;
  expect(hours).toBeCloseTo(1, 1);
  await expect
    .poll(async () => (await alertmanagerAlerts(am, ALERT))[0]?.status, { timeout: 10_000 })
    .toMatchObject({ state: "suppressed", silencedBy: [envelope.data.silenceID] });
});
