/**
 * The editor without a mouse: nodes, handles and edges have accessible names; a focused node connects to
 * another through a list (C, arrows, Enter); Shift+F10 opens its menu; D disables it.
 */
import { test, expect } from "../fixtures";
import { CanvasPage } from "../support/canvas-page";
import { createApp } from "../support/apps";

test("keyboard: accessible names, connect with C, menu with Shift+F10, disable with D", async ({ page, api, seed }) => {
  const ws = seed.workspaceId;
  const app = await createApp(api, ws, {
    name: "Keyboard only",
    graph: {
      nodes: [
        { id: "n1", name: "start", key: "core.manual", config: {}, position: { x: 0, y: 0 } },
        { id: "n2", name: "gate", key: "core.filter", config: { condition: "{{ true }}" }, position: { x: 320, y: -120 } },
        { id: "n3", name: "probe", key: "core.http", config: { method: "GET", url: "http://127.0.0.1:9/" }, position: { x: 320, y: 20 } },
        { id: "n4", name: "tail", key: "core.filter", config: { condition: "{{ true }}" }, position: { x: 320, y: 160 } },
      ],
      edges: [
        { from: "n1", to: "n2" },
        { from: "n1", to: "n3" },
        { from: "n1", to: "n4" },
      ],
    },
  });
  const canvas = new CanvasPage(page);
  await canvas.goto(ws, app.id);

  // Accessible names: nodes by what they are and their name; handles by direction and node.
  await expect(page.getByRole("group", { name: "Manual start node, start" })).toBeVisible();
  await expect(page.getByRole("group", { name: /^HTTP request node, probe/ })).toBeVisible();
  await expect(canvas.wrapper("probe").locator('.react-flow__handle[aria-label="Input of probe"]')).toHaveCount(1);
  await expect(canvas.wrapper("start").locator('.react-flow__handle[aria-label="Output of start"]')).toHaveCount(1);

  // Tab reaches the nodes; C on the focused node lists the nodes that can receive its events.
  await page.locator("#automation-name").focus();
  for (let i = 0; i < 150; i++) {
    await page.keyboard.press("Tab");
    if (await canvas.wrapper("gate").evaluate((el) => el === document.activeElement)) break;
  }
  await expect(canvas.wrapper("gate")).toBeFocused();
  // The first C of the session: letters typed right after it are the filter, none lost while the dialog
  // loads and opens ("lter" for "filter" before).
  await page.keyboard.press("c");
  await page.keyboard.type("tai");
  const search = page.getByTestId("connect-search");
  await expect(search).toHaveValue("tai");
  await expect(page.getByRole("option")).toHaveText([/tail/]);
  await search.fill("");
  await expect(search).toBeFocused();
  // Not the trigger (no input), not itself.
  await expect(page.getByRole("option")).toHaveText([/probe/, /tail/]);
  await page.keyboard.press("ArrowDown");
  await expect(page.getByRole("option", { name: /tail/ })).toHaveAttribute("aria-selected", "true");
  await page.keyboard.press("Enter");
  await expect(search).toHaveCount(0);
  expect(await canvas.hasEdge("gate", "tail")).toBe(true);
  await expect(canvas.wrapper("gate")).toBeFocused();

  // From the probe, "take input from…" offers nodes that can send to it; typing filters; Enter connects.
  await canvas.wrapper("probe").focus();
  await page.keyboard.press("c");
  await page.getByTestId("connect-direction-from").click();
  // start → probe exists already: only gate and tail are offered.
  await expect(page.getByRole("option")).toHaveText([/gate/, /tail/]);
  await page.getByTestId("connect-search").fill("ga");
  await expect(page.getByRole("option")).toHaveText([/gate/]);
  await page.keyboard.press("Enter");
  expect(await canvas.hasEdge("gate", "probe")).toBe(true);

  // A loop is never offered: gate now feeds probe and tail, so neither can feed gate.
  await canvas.wrapper("tail").focus();
  await page.keyboard.press("c");
  await expect(page.getByRole("option")).toHaveText([/probe/]);
  // A trigger has no input.
  await page.keyboard.press("Escape");
  await canvas.wrapper("start").focus();
  await page.keyboard.press("c");
  await expect(page.getByTestId("connect-direction-from")).toBeDisabled();
  await page.keyboard.press("Escape");
  await expect(page.getByTestId("connect-search")).toHaveCount(0);

  // Enter on a focused node opens its panel; the canvas refits to the narrower space and focus stays on the node.
  await canvas.wrapper("tail").focus();
  await page.keyboard.press("Enter");
  await expect(canvas.panel()).toBeVisible();
  await expect(canvas.wrapper("tail")).toBeFocused();
  await page.keyboard.press("Escape");
  await expect(canvas.panel()).toBeHidden();

  // Shift+F10 opens the focused node's menu; arrows and Enter choose; focus comes back to the node.
  await canvas.wrapper("probe").focus();
  await page.keyboard.press("Shift+F10");
  const menu = page.getByRole("menu", { name: "Actions for probe" });
  await expect(menu).toBeFocused();
  await page.keyboard.press("d"); // first letter jumps to "Duplicate" …
  await page.keyboard.press("ArrowDown"); // … "Copy"
  await page.keyboard.press("ArrowDown"); // … "Disable"
  await expect(menu).toHaveAttribute("aria-activedescendant", "cm-item-disable");
  await page.keyboard.press("Enter");
  await expect(menu).toHaveCount(0);
  await expect(canvas.nodeByName("probe")).toHaveAttribute("data-disabled", "true");
  await expect(canvas.wrapper("probe")).toBeFocused();

  // D toggles it back.
  await page.keyboard.press("d");
  await expect(canvas.nodeByName("probe")).not.toHaveAttribute("data-disabled", "true");
  await expect(canvas.edges()).toHaveCount(5);
});
