/**
 * Build onAlert → createSilence from the palette with real pointer drags, configure it (matchers with an
 * expression picked from autocomplete), see validation problems on the exact field (saved as a draft), save, enable, and
 * copy the webhook URL from the trigger panel (read back from the clipboard).
 */
import { test, expect } from "../fixtures";
import { CanvasPage } from "../support/canvas-page";

test("build, validate, save and copy the webhook URL", async ({ page, seed }) => {
  const ws = seed.workspaceId;
  // Selecting a trigger that is not saved yet asks the server nothing about it (that answered 404).
  const failed: string[] = [];
  page.on("response", (r) => {
    if (r.status() >= 400 && r.url().includes("/api/trpc/")) failed.push(`${r.status()} ${r.url().replace(/\?.*/, "")}`);
  });

  // A metrics connection made in the UI. One primary action, "Save and test": it shows the exact failure
  // (nothing listens on port 9) and keeps the dialog open; "Save without testing" keeps it anyway.
  await page.goto(`/w/${ws}/connections`);
  await page.getByTestId("new-connection").click();
  await page.getByTestId("pick-integration-metrics").click();
  const form = page.getByTestId("connection-form");
  await expect(form.locator(".btn-primary")).toHaveText(["Save and test"]);
  await expect(form.getByRole("button", { name: /Create connection/ })).toHaveCount(0);
  await page.getByLabel("Name", { exact: true }).fill("e2e prometheus");
  await page.getByLabel(/Metrics Base URL/).fill("http://127.0.0.1:9");
  await form.getByRole("button", { name: "Save and test" }).click();
  await expect(page.getByTestId("verify-result")).toContainText(/127\.0\.0\.1:9|ECONNREFUSED|connect/i);
  await expect(form).toBeVisible();
  await form.getByRole("button", { name: "Save without testing" }).click();
  await expect(form).toBeHidden();
  await expect(page.getByTestId("connection-e2e prometheus")).toBeVisible();

  // New automation → editor.
  await page.goto(`/w/${ws}/automations`);
  await page.getByTestId("new-automation").click();
  await page.getByLabel("Name", { exact: true }).fill("Silence firing alerts");
  await page.getByTestId("create-automation").click();
  await expect(page).toHaveURL(/\/automations\/aut_/);
  const canvas = new CanvasPage(page);
  await expect(canvas.canvas).toBeVisible();

  // Real drags from the palette, then a real drag between handles.
  await canvas.dragFromPalette("metrics.onAlert", { x: 200, y: 220 });
  await canvas.dragFromPalette("metrics.createSilence", { x: 560, y: 260 });
  await canvas.connect("onAlert", "createSilence");
  await expect(canvas.edges()).toHaveCount(1);
  await expect(page.getByTestId("save-state")).toHaveText(/Unsaved changes/);

  // Trigger settings.
  await canvas.select("onAlert");
  await page.getByTestId("node-connection-select").selectOption({ label: "e2e prometheus" });
  // Statuses is required; a new node starts with it prefilled to firing.
  await expect(canvas.field("statuses").getByRole("button", { name: "Firing" })).toHaveAttribute("aria-pressed", "true");
  await expect(canvas.field("statuses").getByRole("button", { name: "Resolved" })).toHaveAttribute("aria-pressed", "false");

  // Silence settings: a matcher whose value is an expression picked from autocomplete.
  await canvas.select("createSilence");
  await page.getByTestId("node-connection-select").selectOption({ label: "e2e prometheus" });
  await canvas
    .field("matchers")
    .getByRole("button", { name: /Add matcher/ })
    .click();
  await canvas.field("matchers.0.name").getByRole("textbox").fill("alertname");
  await canvas.pickExpression("matchers.0.value", "$trigger.data.lab", "$trigger.data.labels.alertname");
  await expect(canvas.field("matchers.0.value").getByTestId(/^preview-/)).toContainText(/"/);
  await canvas.field("duration").getByRole("textbox").fill("1h");
  await canvas.field("createdBy").getByRole("textbox").fill("conveyor");

  // Saving without the required comment: kept as a draft, the server's problem on that exact field.
  await canvas.save();
  await expect(canvas.field("comment").getByRole("alert")).toBeVisible();
  await expect(canvas.field("duration").getByRole("alert")).toHaveCount(0);
  await expect(page.getByTestId("save-state")).toHaveText(/Saved · v2/);
  await expect(page.getByTestId("problem-count")).toHaveText("1 problem");
  await canvas.deselect();
  await canvas.fit();
  await expect(canvas.nodeByName("createSilence").getByTestId("node-problems")).toBeVisible();
  await expect(canvas.nodeByName("onAlert").getByTestId("node-problems")).toHaveCount(0);

  await canvas.select("createSilence");
  await canvas.field("comment").getByRole("textbox").fill("auto-silenced by Conveyor");
  await canvas.save();
  await expect(page.getByTestId("save-state")).toHaveText(/Saved · v3/);
  await expect(page.getByTestId("problem-count")).toHaveCount(0);

  expect(failed.filter((f) => f.includes("triggerInfo"))).toEqual([]);

  // Enable, then the trigger panel shows the webhook URL; copy it and read the clipboard.
  await page.getByTestId("enabled-switch").click();
  await expect(page.getByTestId("enabled-switch")).toHaveAttribute("aria-checked", "true");
  await canvas.select("onAlert");
  await page.getByTestId("panel-tab-trigger").click();
  const url = await page.getByTestId("trigger-url").inputValue();
  expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/hooks\/\S+$/);
  await expect(page.getByTestId("alertmanager-snippet").first()).toContainText(url);
  await page.getByTestId("copy-trigger-url").click();
  await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(url);

  // Reload: the saved graph comes back.
  await page.reload();
  await expect(canvas.nodeByName("onAlert")).toBeVisible();
  await expect(canvas.nodeByName("createSilence")).toBeVisible();
  await expect(canvas.edges()).toHaveCount(1);
});
