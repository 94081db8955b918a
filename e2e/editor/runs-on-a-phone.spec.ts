/**
 * An on-call engineer on a phone (390 px): the runs list says when each run started and why it failed
 * without scrolling sideways, and a failed run's error banner is readable with its "open in the editor"
 * link under it; at desktop width the list keeps its columns and the banner its one line.
 */
import type { Locator } from "@playwright/test";
import { test, expect } from "../fixtures";
import { createApp } from "../support/apps";

const inside = async (l: Locator, width: number) => {
  const b = (await l.boundingBox())!;
  expect(b.x).toBeGreaterThanOrEqual(0);
  expect(b.x + b.width).toBeLessThanOrEqual(width);
  return b;
};

test("runs list and run view at 390 px: when and why a run failed, on screen, readable", async ({ page, api, seed, probe }) => {
  test.setTimeout(120_000);
  const ws = seed.workspaceId;
  const app = await createApp(api, ws, {
    name: `Page the storage team ${Date.now().toString(36)}`,
    enabled: true,
    graph: {
      nodes: [
        { id: "n1", name: "start", key: "core.manual", config: {}, position: { x: 0, y: 0 } },
        {
          id: "n2",
          name: "call_the_pager_webhook",
          key: "core.http",
          config: { method: "GET", url: `${probe}/pager/storage_team_critical_db_primary_eu_west_1_var_lib_postgresql` },
          position: { x: 320, y: 0 },
        },
      ],
      edges: [{ from: "n1", to: "n2" }],
    },
  });
  const run = await (await api.post(`/api/v1/factories/${ws}/apps/${app.id}/runs`, { data: { payload: {} } })).json();
  await expect
    .poll(async () => (await (await api.get(`/api/v1/factories/${ws}/apps/${app.id}/runs/${run.id}`)).json()).status, { timeout: 30_000 })
    .toBe("failed");

  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`/w/${ws}/runs?automationId=${app.id}`);
  const row = page.getByTestId(`run-row-${run.id}`);
  const error = row.getByTestId("run-narrow-error");
  await expect(error).toHaveText("call_the_pager_webhook: GET /pager/storage_team_critical_db_primary_eu_west_1_var_lib_postgresql → 404: not found");
  await inside(error, 390);
  await expect(row.getByTestId("run-narrow-summary")).toContainText(/start · (just now|\d+ \w+ ago)/);
  await inside(row.getByTestId("run-narrow-summary"), 390);
  // Nothing left to the right of the card's edge, even with the error's long path: the table does not scroll sideways.
  const card = page.locator(".card:has(table)");
  expect(await card.evaluate((el) => el.scrollWidth - el.clientWidth)).toBeLessThanOrEqual(0);

  await row.getByRole("link", { name: `Run ${run.id}` }).click();
  const banner = page.getByTestId("run-error");
  await expect(banner).toHaveText("call_the_pager_webhook: GET /pager/storage_team_critical_db_primary_eu_west_1_var_lib_postgresql → 404: not found");
  const fix = page.getByTestId("fix-in-editor");
  await expect(fix).toBeVisible();
  const message = await inside(banner, 390);
  const link = await inside(fix, 390);
  // The message spans the banner (it was a column a few letters wide beside the link), the link under it.
  expect(message.width).toBeGreaterThan(390 * 0.75);
  expect(link.y).toBeGreaterThanOrEqual(message.y + message.height);

  // Desktop: the list's own columns, the banner on one line with the link beside the message.
  await page.setViewportSize({ width: 1280, height: 800 });
  await expect(fix).toBeVisible();
  await expect.poll(async () => (await fix.boundingBox())!.y).toBeLessThan((await banner.boundingBox())!.y + (await banner.boundingBox())!.height);
  await page.goto(`/w/${ws}/runs?automationId=${app.id}`);
  await expect(row.getByTestId("run-narrow-error")).toBeHidden();
  await expect(row.getByTestId("run-started")).toBeVisible();
  await expect(row.locator("td[title]").last()).toHaveText(/404: not found/);
});
