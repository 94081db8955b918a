/**
 * The editor shows where the automation's latest run failed: the failing node carries a mark whose name
 * and tooltip are the error, linking to that run; once a later run succeeds the mark goes (by itself).
 */
import { test, expect } from "../fixtures";
import { createApp } from "../support/apps";
import { CanvasPage } from "../support/canvas-page";

test("a node that failed in the latest run is marked, with the error, linking to the run", async ({ page, api, seed, probe }) => {
  test.setTimeout(120_000);
  const ws = seed.workspaceId;
  const suffix = Date.now().toString(36);
  const graph = (path: string) => ({
    nodes: [
      { id: "n1", name: "start", key: "core.manual", config: {}, position: { x: 0, y: 0 } },
      { id: "n2", name: "probe", key: "core.http", config: { method: "GET", url: `${probe}${path}` }, position: { x: 320, y: 0 } },
    ],
    edges: [{ from: "n1", to: "n2" }],
  });
  const app = await createApp(api, ws, { name: `Failure mark ${suffix}`, enabled: true, graph: graph("/missing") });
  const runTo = async (status: string) => {
    const started = await (await api.post(`/api/v1/factories/${ws}/apps/${app.id}/runs`, { data: { payload: {} } })).json();
    await expect
      .poll(async () => (await (await api.get(`/api/v1/factories/${ws}/apps/${app.id}/runs/${started.id}`)).json()).status, { timeout: 30_000 })
      .toBe(status);
    return started.id as string;
  };
  const runId = await runTo("failed");

  const canvas = new CanvasPage(page);
  await canvas.goto(ws, app.id);
  const mark = page.locator('[data-node-name="probe"]').getByTestId("node-last-failure");
  await expect(mark).toHaveAccessibleName(/^Failed in the latest production run: probe: GET \/missing → 404/);
  await expect(mark).toHaveAttribute("title", /^Failed in the latest production run: probe: GET \/missing → 404/);
  await expect(page.locator('[data-node-name="start"]').getByTestId("node-last-failure")).toHaveCount(0);
  await mark.click();
  await expect(page).toHaveURL(new RegExp(`/w/${ws}/runs/${runId}$`));

  // Fixed elsewhere and run again: the latest run succeeded, the open editor drops the mark without a reload.
  await canvas.goto(ws, app.id);
  await expect(page.locator('[data-node-name="probe"]').getByTestId("node-last-failure")).toHaveCount(1);
  const fixed = await api.put(`/api/v1/factories/${ws}/apps/${app.id}`, { data: { name: `Failure mark ${suffix}`, enabled: true, graph: graph("/health") } });
  expect(fixed.status(), await fixed.text()).toBe(200);
  await runTo("succeeded");
  await expect(page.getByTestId("node-last-failure")).toHaveCount(0, { timeout: 30_000 });
});

test("a test run does not move the mark: it stays where the latest production run failed; the failed test shows in its node's Test tab", async ({
  page,
  api,
  seed,
  probe,
}) => {
  test.setTimeout(120_000);
  const ws = seed.workspaceId;
  const suffix = Date.now().toString(36);
  const http = (id: string, name: string, path: string, x: number, y: number) => ({
    id,
    name,
    key: "core.http",
    config: { method: "GET", url: `${probe}${path}` },
    position: { x, y },
  });
  const graph = (otherPath: string) => ({
    nodes: [
      { id: "n1", name: "start", key: "core.manual", config: {}, position: { x: 0, y: 0 } },
      http("n2", "probe", "/missing", 320, -80),
      http("n3", "other", otherPath, 320, 80),
    ],
    edges: [
      { from: "n1", to: "n2" },
      { from: "n1", to: "n3" },
    ],
  });
  const name = `Test runs vs mark ${suffix}`;
  const app = await createApp(api, ws, { name, enabled: true, graph: graph("/health") });
  const until = async (path: string, status: string) =>
    expect.poll(async () => (await (await api.get(`/api/v1/factories/${ws}/apps/${app.id}/runs/${path}`)).json()).status, { timeout: 30_000 }).toBe(status);
  // Production: probe fails (other succeeds).
  const prod = await (await api.post(`/api/v1/factories/${ws}/apps/${app.id}/runs`, { data: { payload: {} } })).json();
  await until(prod.id, "failed");
  // Then someone breaks "other" and tests that step alone: the newest run is a test run failing on "other".
  expect((await api.put(`/api/v1/factories/${ws}/apps/${app.id}`, { data: { name, enabled: true, graph: graph("/gone") } })).status()).toBe(200);
  const tested = await api.post(`/api/v1/factories/${ws}/apps/${app.id}/test-runs`, { data: { nodeId: "n3", scope: "step" } });
  expect(tested.status(), await tested.text()).toBe(202);
  const testRun = await tested.json();
  await until(testRun.id, "failed");

  const canvas = new CanvasPage(page);
  await canvas.goto(ws, app.id);
  // The mark is production's: on probe, linking to the production run; not on the node the test failed.
  const mark = page.locator('[data-node-name="probe"]').getByTestId("node-last-failure");
  await expect(mark).toHaveAttribute("data-run-id", prod.id);
  await expect(page.locator('[data-node-name="other"]').getByTestId("node-last-failure")).toHaveCount(0);
  // The failed test is in the Test tab of the node it tested.
  await canvas.select("other");
  await page.getByTestId("panel-tab-test").click();
  const result = page.getByTestId("test-result");
  await expect(result.getByTestId("run-status")).toHaveAttribute("data-status", "failed");
  await expect(result.getByTestId("test-step-error")).toContainText("GET /gone → 404");
  await expect(result.getByTestId("test-run-link")).toHaveAttribute("href", `/w/${ws}/runs/${testRun.id}`);
  // probe's Test tab has no test to show.
  await canvas.select("probe");
  await page.getByTestId("panel-tab-test").click();
  await expect(page.getByTestId("test-tab")).toBeVisible();
  await expect(page.getByTestId("test-result")).toHaveCount(0);
});
