/** An automation applied from files shows "Managed in Git" and asks before the first edit; an edit here makes the next apply refuse. */
import { test, expect } from "../fixtures";
import { CanvasPage } from "../support/canvas-page";

test("managed in Git: banner, confirm at the first edit, conflict on the next plan", async ({ page, api, seed }) => {
  const ws = seed.workspaceId;
  const key = `git-managed-${Date.now()}`;
  const bundle = {
    apps: [
      {
        key,
        name: `Git managed ${key}`,
        enabled: false,
        concurrency: 5,
        graph: {
          nodes: [
            { id: "n1", name: "start", key: "core.manual", config: {}, position: { x: 0, y: 0 } },
            { id: "n2", name: "gate", key: "core.filter", config: { condition: "{{ $trigger.data.go }}" }, position: { x: 280, y: 0 } },
          ],
          edges: [{ from: "n1", to: "n2" }],
        },
      },
    ],
    lines: [],
    intakes: [],
  };
  const source = {
    repository: "https://git.example.test/ops/automations",
    commit: "e2e0123456789",
    files: { [`automation/${key}`]: `automations/${key}.yaml` },
  };
  const applied = await api.post(`/api/v1/factories/${ws}/import`, { data: { ...bundle, source } });
  expect(applied.status()).toBe(200);
  const app = (await (await api.get(`/api/v1/factories/${ws}/apps?search=${key}`)).json()).data[0];

  await page.goto(`/w/${ws}/automations/${app.id}`);
  const canvas = new CanvasPage(page);
  await expect(page.getByTestId("managed-in-git")).toContainText(`Managed in Git (automations/${key}.yaml@e2e012345678)`);

  // The first edit asks; "Undo my change" puts the canvas back.
  await canvas.dragFromPalette("core.http", { x: 420, y: 520 });
  await expect(page.getByRole("dialog", { name: "Edit an automation managed in Git?" })).toBeVisible();
  await page.getByRole("button", { name: "Undo my change" }).click();
  await expect(canvas.nodeByName("http")).toHaveCount(0);
  await expect(page.getByText("Unsaved changes")).toHaveCount(0);

  // Going on anyway: the save works, the banner says it drifted, and the next plan reports a conflict.
  await canvas.dragFromPalette("core.http", { x: 420, y: 520 });
  await page.getByRole("button", { name: "Edit here anyway" }).click();
  await canvas.connect("gate", "http");
  await canvas.select("http");
  await canvas.field("url").getByRole("textbox").fill("http://127.0.0.1:9/health");
  await canvas.save();
  await expect(page.getByTestId("managed-in-git")).toContainText("Changed here since that apply (version 1 → 2)");
  const plan = await (await api.post(`/api/v1/factories/${ws}/import`, { data: { ...bundle, dryRun: true } })).json();
  expect(plan.conflicts).toEqual([expect.objectContaining({ key, message: expect.stringContaining("version 1 → 2") })]);
  expect((await api.post(`/api/v1/factories/${ws}/import`, { data: bundle })).status()).toBe(409);
});
