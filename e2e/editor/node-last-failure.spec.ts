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
  await expect(mark).toHaveAccessibleName(/^Failed in the latest run: probe: GET \/missing → 404/);
  await expect(mark).toHaveAttribute("title", /^Failed in the latest run: probe: GET \/missing → 404/);
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
