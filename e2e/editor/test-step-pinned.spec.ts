/**
 * Test runs from the editor (issue #13): pin a node's output as typed JSON in its Test tab (a pin badge on
 * the canvas), then "Run step" on the node after it: only that step runs, for real (it calls its
 * upstream), with the pinned output as its input; the pinned node's upstream is not called. Production
 * runs never use pinned data, and "Run from here" in the node menu runs the node itself for real.
 * The upstream is a loopback server of this spec that counts its calls.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { test, expect } from "../fixtures";
import { CanvasPage } from "../support/canvas-page";
import { createApp } from "../support/apps";

let server: http.Server;
let upstream = "";
const hits = { silence: 0, issue: 0 };
test.beforeAll(async () => {
  server = http.createServer((req, res) => {
    const url = new URL(req.url!, "http://x");
    res.writeHead(200, { "content-type": "application/json" });
    if (url.pathname === "/silence") res.end(JSON.stringify({ silenceID: `real-${++hits.silence}` }));
    else if (url.pathname === "/issue") {
      hits.issue++;
      res.end(JSON.stringify({ key: `OPS-${hits.issue}`, silence: url.searchParams.get("silence") }));
    } else res.end("{}");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  upstream = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
test.afterAll(async () => {
  await new Promise((r) => server.close(r));
});

// SCREENSHOTS=1 refreshes the docs/screenshots/ images of this flow.
const SHOTS = process.env.SCREENSHOTS === "1";
const shot = (name: string) => path.join(process.cwd(), "docs", "screenshots", `${name}.png`);

test("pin a node's output and run the next step alone with it; production runs ignore the pin", async ({ page, api, seed }) => {
  test.setTimeout(90_000);
  const ws = seed.workspaceId;
  const app = await createApp(api, ws, {
    name: `Pinned silence ${Date.now().toString(36)}`,
    enabled: true,
    graph: {
      nodes: [
        { id: "n1", name: "start", key: "core.manual", config: {}, position: { x: 0, y: 0 } },
        { id: "n2", name: "silence", key: "core.http", config: { method: "GET", url: `${upstream}/silence` }, position: { x: 320, y: 0 } },
        {
          id: "n3",
          name: "issue",
          key: "core.http",
          config: { method: "GET", url: `${upstream}/issue`, query: { silence: "{{ $steps.silence.data.body.silenceID }}" } },
          position: { x: 640, y: 0 },
        },
      ],
      edges: [
        { from: "n1", to: "n2" },
        { from: "n2", to: "n3" },
      ],
    },
  });
  const canvas = new CanvasPage(page);
  await canvas.goto(ws, app.id);

  // 1. Pin the silence node's output, typed as JSON in its Test tab.
  await canvas.select("silence");
  await page.getByTestId("panel-tab-test").click();
  await page.getByTestId("pin-type").click();
  await page.getByTestId("pin-json").fill('{ "status": 200, "headers": {}, "body": { "silenceID": "pinned-1" } }');
  await page.getByTestId("pin-save").click();
  await expect(page.getByTestId("pinned-data")).toContainText('"silenceID": "pinned-1"');
  await expect(canvas.nodeByName("silence").getByTestId("node-pinned")).toBeVisible();
  await expect(canvas.wrapper("silence")).toHaveAccessibleName(/output pinned/);
  // Not JSON: refused inline, nothing changes.
  await page.getByTestId("pin-edit").click();
  await page.getByTestId("pin-json").fill("{ nope");
  await page.getByTestId("pin-save").click();
  await expect(page.getByTestId("pinned-section").getByRole("alert")).toContainText("Not valid JSON");
  await page.getByTestId("pinned-section").getByRole("button", { name: "Cancel" }).click();

  // 2. Run the issue step alone: it saves first (v2), calls its upstream with the pinned silence id.
  await canvas.select("issue");
  await page.getByTestId("panel-tab-test").click();
  await page.getByTestId("run-step").click();
  const result = page.getByTestId("test-result");
  await expect(result.getByTestId("run-status")).toHaveAttribute("data-status", "succeeded", { timeout: 30_000 });
  await expect(page.getByTestId("save-state")).toHaveText(/Saved · v2/);
  await expect(result).toContainText("pinned data");
  await expect(result.getByTestId("test-output-viewer")).toContainText('"silence": "pinned-1"');
  expect(hits).toEqual({ silence: 0, issue: 1 });

  if (SHOTS) await page.screenshot({ path: shot("node-test-tab") });
  // The run view marks it as a test of one step, the silence as pinned data (not run).
  await result.getByTestId("test-run-link").click();
  await expect(page.getByTestId("test-run-badge")).toContainText("Test of one step");
  await page.getByTestId("run-canvas").locator('.react-flow__node [data-node-name="silence"]').click();
  await expect(page.getByTestId("step-silence").getByTestId("step-origin")).toHaveAttribute("data-origin", "pinned");
  await expect(page.getByTestId("retry-run")).toHaveCount(0);

  // 3. A production run never uses the pin: the silence node calls its upstream.
  await canvas.goto(ws, app.id);
  await page.getByTestId("run-now").click();
  await page.getByTestId("start-run").click();
  await expect(page).toHaveURL(/\/runs\/run_/);
  await expect(page.locator("header:has(h1)").getByTestId("run-status")).toHaveAttribute("data-status", "succeeded", { timeout: 30_000 });
  await expect(page.getByTestId("test-run-badge")).toHaveCount(0);
  await page.getByTestId("run-canvas").locator('.react-flow__node [data-node-name="issue"]').click();
  await expect(page.getByTestId("step-issue").getByTestId("step-output")).toContainText('"silence": "real-1"');
  expect(hits).toEqual({ silence: 1, issue: 2 });

  // 4. "Run from here" on the pinned node (node menu): the node itself runs for real, and what follows.
  await canvas.goto(ws, app.id);
  const menu = await canvas.nodeMenu("silence");
  await menu.getByRole("menuitem", { name: "Run from here" }).click();
  await expect(page).toHaveURL(/\/runs\/run_/);
  await expect(page.getByTestId("test-run-badge")).toContainText("Test from a node on");
  await expect(page.locator("header:has(h1)").getByTestId("run-status")).toHaveAttribute("data-status", "succeeded", { timeout: 30_000 });
  expect(hits).toEqual({ silence: 2, issue: 3 });

  // The runs list tells tests apart.
  await page.goto(`/w/${ws}/runs?automationId=${app.id}`);
  await expect(page.getByTestId("run-test-tag")).toHaveCount(2);
});
