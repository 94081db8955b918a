/**
 * The API reference page: the introduction maps the API's words to the app's, and the viewer's own
 * hosted extras ("Ask AI", "Generate MCP", "Deploy") are not offered.
 */
import { test, expect } from "../fixtures";

test("the API reference maps factory/app/order to workspace/automation/task and hides the viewer's extras", async ({ page }) => {
  await page.goto("/api/v1/docs");
  const intro = page.getByRole("table").filter({ hasText: "workspace" }).first();
  await expect(intro).toBeVisible({ timeout: 30_000 });
  await expect(intro).toContainText("factory");
  await expect(intro).toContainText("automation");
  await expect(intro).toContainText("task");
  // The page has rendered its operations by now.
  await expect(page.getByText("List workspaces").first()).toBeVisible();
  for (const name of [/Ask AI/i, /Generate MCP/i, /^Deploy/i]) await expect(page.getByRole("button", { name })).toHaveCount(0);
  await expect(page.getByText(/Ask AI|Generate MCP/)).toHaveCount(0);
});
