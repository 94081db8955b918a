/**
 * Fit view with the building blocks and the node panel both open: every node lands in the part of the
 * canvas nothing covers (not under the panels, the zoom controls or the minimap), and the fit button stays
 * reachable. Before, on a 1024 px screen the minimap covered the fit button and, on a laptop, the last node
 * of a tall graph sat under the minimap.
 */
import type { Locator } from "@playwright/test";
import { test, expect } from "../fixtures";
import { CanvasPage } from "../support/canvas-page";

type Box = { x: number; y: number; width: number; height: number };
const overlaps = (a: Box, b: Box) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
const inside = (a: Box, b: Box) => a.x >= b.x && a.y >= b.y && a.x + a.width <= b.x + b.width && a.y + a.height <= b.y + b.height;

for (const width of [1280, 1024]) {
  test(`fit view with both side panels open keeps every node in the uncovered canvas (${width} px)`, async ({ page, api, seed }) => {
    await page.setViewportSize({ width, height: 800 });
    const ws = seed.workspaceId;
    // A tall chain that ends at the bottom right: the corner the minimap sits in.
    const at = [
      [0, 0],
      [0, 420],
      [0, 840],
      [320, 1260],
      [320, 1680],
    ];
    const nodes = at.map(([x, y], i) => ({
      id: `n${i + 1}`,
      name: i === 0 ? "start" : `step${i + 1}`,
      key: i === 0 ? "core.manual" : "core.filter",
      config: i === 0 ? {} : { condition: "{{ true }}" },
      position: { x, y },
    }));
    const created = await api.post(`/api/v1/factories/${ws}/apps`, {
      data: { name: `Tall graph ${width}`, enabled: false, graph: { nodes, edges: nodes.slice(1).map((n, i) => ({ from: nodes[i]!.id, to: n.id })) } },
    });
    expect(created.status(), await created.text()).toBe(201);
    const app = await created.json();
    const canvas = new CanvasPage(page);
    await canvas.goto(ws, app.id);
    await canvas.select("step3");
    await expect(page.getByRole("complementary", { name: "Building blocks" })).toBeVisible();
    await canvas.fit();

    const box = async (l: Locator) => (await l.boundingBox())!;
    const area = await box(canvas.canvas);
    const covers: Box[] = [await box(canvas.panel()), await box(page.getByRole("complementary", { name: "Building blocks" }))];
    covers.push(await box(page.locator(".react-flow__controls")));
    const minimap = page.locator(".react-flow__minimap");
    if (await minimap.isVisible()) covers.push(await box(minimap));
    for (const n of nodes) {
      const b = await box(canvas.wrapper(n.name));
      expect(inside(b, area), `${n.name} ${JSON.stringify(b)} inside the canvas ${JSON.stringify(area)}`).toBe(true);
      for (const c of covers) expect(overlaps(b, c), `${n.name} ${JSON.stringify(b)} under ${JSON.stringify(c)}`).toBe(false);
    }
  });
}

test("hiding the building blocks gives the canvas their width, and the fitted graph grows into it", async ({ page, api, seed }) => {
  const ws = seed.workspaceId;
  const nodes = [0, 1, 2, 3, 4, 5].map((i) => ({
    id: `n${i + 1}`,
    name: i === 0 ? "start" : `step${i + 1}`,
    key: i === 0 ? "core.manual" : "core.filter",
    config: i === 0 ? {} : { condition: "{{ true }}" },
    position: { x: i * 320, y: (i % 2) * 120 },
  }));
  const created = await api.post(`/api/v1/factories/${ws}/apps`, {
    data: { name: "Wide graph", enabled: false, graph: { nodes, edges: nodes.slice(1).map((n, i) => ({ from: nodes[i]!.id, to: n.id })) } },
  });
  const app = await created.json();
  const canvas = new CanvasPage(page);
  await canvas.goto(ws, app.id);
  await canvas.select("step3");
  const before = (await canvas.canvas.boundingBox())!;
  const nodeWidth = async () => (await canvas.wrapper("step6").boundingBox())!.width;
  const small = await nodeWidth();

  await page.getByRole("button", { name: "Hide building blocks" }).click();
  await expect(page.getByTestId("palette-search")).toHaveCount(0);
  await expect.poll(async () => (await canvas.canvas.boundingBox())!.width).toBeGreaterThan(before.width + 150);
  // Still fitted: the graph grows with the canvas (the panel stays open).
  await expect.poll(nodeWidth).toBeGreaterThan(small * 1.3);
  await expect(canvas.panel()).toBeVisible();

  // Remembered in this browser; "Show building blocks" brings them back.
  await page.reload();
  await expect(page.getByRole("button", { name: "Show building blocks" })).toBeVisible();
  await page.getByRole("button", { name: "Show building blocks" }).click();
  await expect(page.getByTestId("palette-search")).toBeVisible();
});
