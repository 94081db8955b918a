/**
 * The run view at speed and through a server restart: Enter on a focused node shows that node's step
 * (keyboard users could only see the failed or last one), and a poll that fails while the run is live
 * keeps the run on screen, marked as last seen, instead of replacing it with an error page.
 */
import { test, expect } from "../fixtures";
import { createApp } from "../support/apps";

test("Enter on a node shows its step; a lost server keeps the run on screen until it answers again", async ({ page, api, seed }) => {
  const ws = seed.workspaceId;
  const app = await createApp(api, ws, {
    name: "Wait a little",
    enabled: true,
    graph: {
      nodes: [
        { id: "n1", name: "start", key: "core.manual", config: {}, position: { x: 0, y: 0 } },
        { id: "n2", name: "pause", key: "core.wait", config: { duration: "15s" }, position: { x: 320, y: 0 } },
      ],
      edges: [{ from: "n1", to: "n2" }],
    },
  });
  const run = await (await api.post(`/api/v1/factories/${ws}/apps/${app.id}/runs`, { data: { payload: { reason: "keyboard" } } })).json();
  await page.goto(`/w/${ws}/runs/${run.id}`);
  const header = page.locator("header:has(h1)");
  await expect(header.getByTestId("run-status")).toHaveAttribute("data-status", /queued|running|waiting/);

  // Keyboard: focus the trigger node, Enter: its step (the event) is what the panel shows.
  await page.locator('.react-flow__node:has([data-node-name="start"])').focus();
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("step-start")).toBeVisible();
  await expect(page.getByTestId("step-start")).toContainText('"reason": "keyboard"');

  // The server stops answering while the run is live: the run stays, marked as last seen.
  let refused = 0;
  const runsGet = (url: URL) => url.pathname.includes("runs.get");
  await page.route(runsGet, (route) => {
    refused++;
    return route.abort("connectionrefused");
  });
  await expect.poll(() => refused, { timeout: 15_000 }).toBeGreaterThan(1);
  await expect(page.getByTestId("run-stale")).toContainText("Lost contact with the server");
  await expect(header.getByTestId("run-status")).toBeVisible();
  await expect(page.getByTestId("load-error")).toHaveCount(0);

  // Back: followed live again, to the end.
  await page.unroute(runsGet);
  await expect(header.getByTestId("run-status")).toHaveAttribute("data-status", "succeeded", { timeout: 45_000 });
  await expect(page.getByTestId("run-stale")).toHaveCount(0);
});
