/**
 * Click-to-add: a pressed palette item lands right of the selected node, connected from it, never on top of
 * another node; edges have arrowheads; a reopened automation is fitted, and the fitted graph is not hidden
 * by the node panel.
 */
import type { Locator, Page } from "@playwright/test";
import { test, expect } from "../fixtures";
import { CanvasPage } from "../support/canvas-page";

const box = async (l: Locator) => (await l.boundingBox())!;
const overlap = (a: { x: number; y: number; width: number; height: number }, b: typeof a) =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

async function allNodesInside(page: Page, area: Locator) {
  const frame = await box(area);
  const boxes = await page.locator(".react-flow__node").evaluateAll((els) => els.map((e) => e.getBoundingClientRect().toJSON() as DOMRect));
  for (const b of boxes) {
    expect(b.left).toBeGreaterThanOrEqual(frame.x - 1);
    expect(b.top).toBeGreaterThanOrEqual(frame.y - 1);
    expect(b.right).toBeLessThanOrEqual(frame.x + frame.width + 1);
    expect(b.bottom).toBeLessThanOrEqual(frame.y + frame.height + 1);
  }
  return boxes.length;
}

test("click-to-add places the node after the selected one and connects it", async ({ page, api, seed }) => {
  const canvas = new CanvasPage(page);
  await canvas.create(seed.workspaceId, "Click to add");

  // Nothing selected: a trigger goes in the middle, unconnected.
  const start = await canvas.clickPalette("core.manual");
  await expect(canvas.edges()).toHaveCount(0);

  // The new node is selected: the next one goes to its right, on its row, connected from it.
  const fetch = await canvas.clickPalette("core.http");
  await expect(canvas.edges()).toHaveCount(1);
  expect(await canvas.hasEdge(start, fetch)).toBe(true);
  let a = await box(canvas.nodeByName(start));
  const b = await box(canvas.nodeByName(fetch));
  expect(b.x).toBeGreaterThan(a.x + a.width);
  expect(Math.abs(b.y - a.y)).toBeLessThan(4);

  const check = await canvas.clickPalette("core.filter");
  expect(await canvas.hasEdge(fetch, check)).toBe(true);

  // Back to the trigger: the spot on its right is taken, so the branch goes to a free row.
  await canvas.nodeByName(start).click();
  const branch = await canvas.clickPalette("core.filter");
  expect(await canvas.hasEdge(start, branch)).toBe(true);
  await expect(canvas.edges()).toHaveCount(3);
  a = await box(canvas.nodeByName(start));
  const c = await box(canvas.nodeByName(branch));
  expect(c.x).toBeGreaterThan(a.x + a.width);
  for (const other of [fetch, check]) expect(overlap(c, await box(canvas.nodeByName(other)))).toBe(false);

  // A trigger is never wired after the selection.
  await canvas.nodeByName(check).click();
  await canvas.clickPalette("core.webhook");
  await expect(canvas.edges()).toHaveCount(3);

  // Edges end in an arrowhead.
  const marker = await canvas.edges().first().locator("path.react-flow__edge-path").getAttribute("marker-end");
  expect(marker).toMatch(/^url\(['"]?#.*arrowclosed/);

  // Undo takes back the last added node; the others keep their edges.
  await page.keyboard.press("ControlOrMeta+z");
  await expect(page.locator(".react-flow__node")).toHaveCount(4);
  await expect(canvas.edges()).toHaveCount(3);

  // A reopened automation is fitted whole, coming from another one, and stays so with the node panel open.
  page.on("dialog", (d) => void d.accept()); // leaving the unsaved click-to-add graph
  const wide = await api.post(`/api/v1/factories/${seed.workspaceId}/apps`, {
    data: {
      name: "Wide",
      graph: {
        nodes: [
          { id: "w1", name: "start", key: "core.manual", config: {}, position: { x: -900, y: -400 } },
          ...[1, 2, 3].map((i) => ({
            id: `w${i + 1}`,
            name: `gate${i}`,
            key: "core.filter",
            config: { condition: "{{ true }}" },
            position: { x: -900 + i * 700, y: -400 + i * 260 },
          })),
        ],
        edges: [
          { from: "w1", to: "w2" },
          { from: "w2", to: "w3" },
          { from: "w3", to: "w4" },
        ],
      },
    },
  });
  expect(wide.status(), await wide.text()).toBe(201);
  await canvas.goto(seed.workspaceId, (await wide.json()).id);
  await expect(page.locator(".react-flow__node")).toHaveCount(4);
  await expect.poll(() => allNodesInside(page, canvas.canvas).catch(() => 0)).toBe(4);
  await canvas.wrapper("gate3").click();
  await expect(canvas.panel()).toBeVisible();
  await expect.poll(() => allNodesInside(page, canvas.canvas).catch(() => 0)).toBe(4);
  const panel = await box(canvas.panel());
  const rights = await page.locator(".react-flow__node").evaluateAll((els) => els.map((e) => e.getBoundingClientRect().right));
  for (const right of rights) expect(right).toBeLessThanOrEqual(panel.x + 1);
});
