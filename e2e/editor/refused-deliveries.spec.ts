/**
 * Trigger panel: deliveries the trigger's URL refused (here a wrong bearer secret) are listed with how
 * many and what the sender was told, so a sender misconfigured upstream is visible in the editor.
 */
import { test, expect } from "../fixtures";
import { CanvasPage } from "../support/canvas-page";
import { createApp } from "../support/apps";

test("a delivery refused for a wrong secret shows in the trigger panel", async ({ page, api, seed }) => {
  const ws = seed.workspaceId;
  const app = await createApp(api, ws, {
    name: "Guarded hook",
    enabled: true,
    graph: {
      nodes: [{ id: "n1", name: "hook", key: "core.webhook", config: { authentication: "bearer", secret: "right-secret" }, position: { x: 0, y: 0 } }],
      edges: [],
    },
  });
  const canvas = new CanvasPage(page);
  await canvas.goto(ws, app.id);
  await canvas.select("hook");
  await page.getByTestId("panel-tab-trigger").click();
  const url = await page.getByTestId("trigger-url").inputValue();
  await expect(page.getByTestId("refused-deliveries")).toBeHidden();

  const refused = await page.request.post(url, { data: { hello: 1 }, headers: { authorization: "Bearer wrong-secret" } });
  expect(refused.status()).toBe(401);

  await page.reload();
  await canvas.select("hook");
  await page.getByTestId("panel-tab-trigger").click();
  const box = page.getByTestId("refused-deliveries");
  await expect(box).toContainText("1 delivery refused");
  await expect(box).toContainText("401");
  await expect(box).toContainText("Missing or wrong bearer token");
});
