/** Undo/redo with the keyboard and toolbar; copy/paste within and across automations; delete. */
import { test, expect } from "../fixtures";
import { CanvasPage } from "../support/canvas-page";

async function newAutomation(api: import("@playwright/test").APIRequestContext, page: import("@playwright/test").Page, ws: string, name: string) {
  await page.goto(`/w/${ws}/automations`);
  await page.getByTestId("new-automation").click();
  await page.getByLabel("Name", { exact: true }).fill(name);
  await page.getByTestId("create-automation").click();
  await expect(page).toHaveURL(/\/automations\/aut_/);
  return page.url().split("/").pop()!;
}

test("undo/redo and copy/paste across automations", async ({ page, api, seed }) => {
  const ws = seed.workspaceId;
  await newAutomation(api, page, ws, "Undo playground");
  const canvas = new CanvasPage(page);
  await canvas.dragFromPalette("core.manual", { x: 180, y: 200 });
  await canvas.dragFromPalette("core.http", { x: 520, y: 220 });
  await canvas.connect("manual", "http");
  await expect(canvas.edges()).toHaveCount(1);

  // Rename http → fetch, then undo restores the old name.
  await canvas.select("http");
  await canvas.field("url").getByRole("textbox").fill("http://127.0.0.1:9/health");
  await page.getByTestId("node-name-input").fill("fetch");
  await page.getByTestId("node-name-input").press("Enter");
  await expect(canvas.nodeByName("fetch")).toBeVisible();
  await canvas.canvas.locator(".react-flow__pane").click({ position: { x: 40, y: 40 } });
  await page.keyboard.press("ControlOrMeta+z");
  await expect(canvas.nodeByName("http")).toBeVisible();
  await page.keyboard.press("ControlOrMeta+Shift+z");
  await expect(canvas.nodeByName("fetch")).toBeVisible();

  // Delete with the keyboard; undo brings the node and its edge back; redo removes them again.
  await canvas.nodeByName("fetch").click();
  await canvas.canvas.locator(".react-flow__pane").hover();
  await page.keyboard.press("Delete");
  await expect(canvas.nodeByName("fetch")).toHaveCount(0);
  await expect(canvas.edges()).toHaveCount(0);
  await page.getByTestId("undo").click();
  await expect(canvas.nodeByName("fetch")).toBeVisible();
  await expect(canvas.edges()).toHaveCount(1);
  await page.getByTestId("redo").click();
  await expect(canvas.nodeByName("fetch")).toHaveCount(0);
  await page.getByTestId("undo").click();

  // Copy both nodes, paste: fresh names, the edge between them comes along.
  await page.keyboard.press("ControlOrMeta+a");
  await page.keyboard.press("ControlOrMeta+c");
  await page.keyboard.press("ControlOrMeta+v");
  await expect(canvas.nodeByName("manual2")).toBeVisible();
  await expect(canvas.nodeByName("fetch2")).toBeVisible();
  await expect(canvas.edges()).toHaveCount(2);
  await canvas.save();
  await expect(page.getByTestId("save-state")).toHaveText(/Saved · v2/);

  // Version history: restoring v1 (empty) saves it as v3; restoring v2 brings the nodes back as v4.
  await page.getByTestId("history").click();
  const versions = page.getByTestId("versions-list");
  await expect(versions.getByRole("listitem")).toHaveCount(2);
  await versions.getByRole("listitem").filter({ hasText: "v1" }).getByRole("button", { name: "Restore" }).click();
  await expect(page.getByTestId("save-state")).toHaveText(/Saved · v3/);
  await expect(canvas.nodeByName("fetch")).toHaveCount(0);
  await page.getByTestId("history").click();
  await versions.getByRole("listitem").filter({ hasText: "v2" }).getByRole("button", { name: "Restore" }).click();
  await expect(page.getByTestId("save-state")).toHaveText(/Saved · v4/);
  await canvas.fit();
  await expect(canvas.nodeByName("fetch2")).toBeVisible();

  // Paste into another automation.
  await newAutomation(api, page, ws, "Paste target");
  await expect(canvas.canvas).toBeVisible();
  await canvas.canvas.locator(".react-flow__pane").click({ position: { x: 60, y: 60 } });
  await page.keyboard.press("ControlOrMeta+v");
  await expect(canvas.nodeByName("fetch")).toBeVisible();
  await expect(canvas.nodeByName("manual")).toBeVisible();

  // Rename in place on the canvas (double-click the name).
  await canvas.deselect();
  await canvas.fit();
  await canvas
    .nodeByName("fetch")
    .getByTitle(/double-click to rename/)
    .dblclick();
  await page.getByLabel("Node name").fill("fetchAgain");
  await page.getByLabel("Node name").press("Enter");
  await expect(canvas.nodeByName("fetchAgain")).toBeVisible();

  // Leaving with unsaved changes asks first.
  page.once("dialog", (d) => d.dismiss());
  await page.getByRole("link", { name: "Back to automations" }).click();
  await expect(page).toHaveURL(/\/automations\/aut_/);
});
