/**
 * The right-click menus (node and canvas) and disabling a node: greyed on the canvas, skipped in the run
 * (its downstream still runs), greyed in the run view too.
 */
import { test, expect } from "../fixtures";
import { CanvasPage } from "../support/canvas-page";
import { createApp } from "../support/apps";

test("node menu: duplicate, copy/paste, disable (skipped in the run, greyed in the run view), delete", async ({ page, api, seed, probe }) => {
  const ws = seed.workspaceId;
  const app = await createApp(api, ws, {
    name: "Disable a middle node",
    enabled: true,
    graph: {
      nodes: [
        { id: "n1", name: "start", key: "core.manual", config: {}, position: { x: 0, y: 0 } },
        { id: "n2", name: "gate", key: "core.filter", config: { condition: "{{ false }}" }, position: { x: 320, y: 0 } },
        { id: "n3", name: "probe", key: "core.http", config: { method: "GET", url: `${probe}/health` }, position: { x: 640, y: 0 } },
      ],
      edges: [
        { from: "n1", to: "n2" },
        { from: "n2", to: "n3" },
      ],
    },
  });
  const canvas = new CanvasPage(page);
  await canvas.goto(ws, app.id);

  // The menu names its node; "Run from here" (a test run from this node on) is available and says what it does.
  let menu = await canvas.nodeMenu("gate");
  await expect(menu).toHaveAttribute("aria-label", "Actions for gate");
  await expect(menu.getByRole("menuitem", { name: "Run from here" })).not.toHaveAttribute("aria-disabled", "true");
  await expect(menu.getByTestId("menu-run-from-here")).toHaveAttribute("title", /test run of the saved version/i);

  // Duplicate, then delete the copy from its own menu.
  await menu.getByRole("menuitem", { name: "Duplicate" }).click();
  await expect(canvas.nodeByName("gate2")).toBeVisible();
  menu = await canvas.nodeMenu("gate2");
  await menu.getByRole("menuitem", { name: "Delete" }).click();
  await expect(canvas.nodeByName("gate2")).toHaveCount(0);

  // Copy from the node menu, paste from the canvas menu where it was opened.
  menu = await canvas.nodeMenu("probe");
  await menu.getByRole("menuitem", { name: "Copy" }).click();
  const pane = canvas.canvas.locator(".react-flow__pane");
  await pane.click({ button: "right", position: { x: 200, y: 400 } });
  await page.getByTestId("context-menu").getByRole("menuitem", { name: "Paste here" }).click();
  await expect(canvas.nodeByName("probe2")).toBeVisible();
  const pasted = (await canvas.nodeByName("probe2").boundingBox())!;
  const paneBox = (await canvas.canvas.boundingBox())!;
  expect(Math.abs(pasted.x - (paneBox.x + 200))).toBeLessThan(40);
  await canvas.nodeMenu("probe2").then((m) => m.getByRole("menuitem", { name: "Delete" }).click());

  // Disable the gate (its condition is false: enabled, it would stop the branch).
  menu = await canvas.nodeMenu("gate");
  await menu.getByRole("menuitem", { name: "Disable" }).click();
  await expect(canvas.nodeByName("gate")).toHaveAttribute("data-disabled", "true");
  await expect(canvas.nodeByName("gate").getByTestId("node-disabled")).toBeVisible();
  await expect(canvas.wrapper("gate")).toHaveAccessibleName(/Filter node, gate, disabled/);
  await expect(canvas.edges().first().locator("path.react-flow__edge-path")).toHaveCSS("stroke-dasharray", /5/);
  // The menu now offers to enable it.
  menu = await canvas.nodeMenu("gate");
  await expect(menu.getByRole("menuitem", { name: "Enable" })).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(page.getByTestId("context-menu")).toHaveCount(0);

  await canvas.save();
  await expect(page.getByTestId("save-state")).toContainText("Saved");
  const saved = await (await api.get(`/api/v1/factories/${ws}/apps/${app.id}`)).json();
  expect(saved.graph.nodes.find((n: { name: string }) => n.name === "gate").disabled).toBe(true);

  // Run: the disabled gate is skipped and the probe after it runs.
  await page.getByTestId("run-now").click();
  await page.getByTestId("start-run").click();
  await expect(page).toHaveURL(/\/runs\/run_/);
  await expect(page.getByTestId("run-status").first()).toHaveAttribute("data-status", "succeeded", { timeout: 30_000 });
  await expect(page.locator('[data-node-name="probe"] [data-testid="node-run-status"]')).toHaveAttribute("data-status", "succeeded");
  await expect(page.locator('[data-node-name="gate"] [data-testid="node-run-status"]')).toHaveCount(0);
  await expect(page.locator('[data-node-name="gate"]')).toHaveAttribute("data-disabled", "true");
  await page.locator('.react-flow__node:has([data-node-name="gate"])').click();
  await expect(page.getByTestId("step-panel")).toContainText("did not run");
});
