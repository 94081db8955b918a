/** Copy → paste of a node carries its pinned output (badge on the canvas, kept in the saved document). */
import { test, expect } from "../fixtures";
import { CanvasPage } from "../support/canvas-page";
import { createApp } from "../support/apps";

test("a pasted node keeps the pinned output of the one copied", async ({ page, api, seed }) => {
  const ws = seed.workspaceId;
  const pinned = { output: { type: "core.http.response", timestamp: "2026-11-25T02:00:00.000Z", data: { status: 200, body: { silenceID: "pinned-7" } } } };
  const app = await createApp(api, ws, {
    name: `Pinned copy ${Date.now().toString(36)}`,
    enabled: false,
    graph: {
      nodes: [
        { id: "n1", name: "start", key: "core.manual", config: {}, position: { x: 0, y: 0 } },
        { id: "n2", name: "silence", key: "core.http", config: { method: "GET", url: "http://127.0.0.1:9/x" }, position: { x: 320, y: 0 }, pinned },
      ],
      edges: [{ from: "n1", to: "n2" }],
    },
  });
  const canvas = new CanvasPage(page);
  await canvas.goto(ws, app.id);
  await expect(canvas.nodeByName("silence").getByTestId("node-pinned")).toBeVisible();

  await canvas.select("silence");
  await canvas.deselect();
  await canvas.wrapper("silence").click();
  await page.keyboard.press("ControlOrMeta+c");
  await canvas.canvas.locator(".react-flow__pane").click({ position: { x: 40, y: 40 } });
  await page.keyboard.press("ControlOrMeta+v");
  await expect(canvas.nodeByName("silence2")).toBeVisible();
  await expect(canvas.nodeByName("silence2").getByTestId("node-pinned")).toBeVisible();
  await expect(canvas.wrapper("silence2")).toHaveAccessibleName(/output pinned/);

  await canvas.save();
  await expect(page.getByTestId("save-state")).toHaveText(/Saved · v2/);
  const saved = await (await api.get(`/api/v1/factories/${ws}/apps/${app.id}`)).json();
  const copy = saved.graph.nodes.find((n: { name: string }) => n.name === "silence2");
  expect(copy.pinned).toMatchObject(pinned);
});
