/** Lines and tasks pages: a line with one step, a task opened on it runs the step and closes completed. */
import { test, expect } from "../fixtures";

test("a task on a line runs its step and shows up closed with its activity", async ({ page, api, seed, probe }) => {
  const ws = seed.workspaceId;
  const suffix = Date.now().toString(36);
  const created = await api.post(`/api/v1/factories/${ws}/apps`, {
    data: {
      name: `Probe step ${suffix}`,
      enabled: true,
      graph: {
        nodes: [
          { id: "n1", name: "start", key: "core.manual", config: {} },
          { id: "n2", name: "probe", key: "core.http", config: { url: `${probe}/health` } },
        ],
        edges: [{ from: "n1", to: "n2" }],
      },
    },
  });
  expect(created.status(), await created.text()).toBe(201);

  await page.goto(`/w/${ws}/lines`);
  await page.getByTestId("new-line").click();
  await page.getByRole("dialog", { name: "New line" }).getByLabel("Name").fill(`Intake line ${suffix}`);
  await page.getByRole("button", { name: "Add step" }).click();
  await page.getByLabel("Step 1 name").fill("Check health");
  await page.getByLabel("Step 1 automation").selectOption({ label: `Probe step ${suffix}` });
  await page.getByRole("button", { name: "Save line" }).click();
  await expect(page.getByText(`Intake line ${suffix}`)).toBeVisible();
  await expect(page.getByText("Check health")).toBeVisible();

  await page.goto(`/w/${ws}/tasks`);
  await page.getByRole("button", { name: "New task" }).click();
  const dialog = page.getByRole("dialog", { name: "New task" });
  await dialog.getByLabel("Title").fill(`Onboard ${suffix}`);
  await dialog.getByLabel("Line", { exact: true }).selectOption({ label: `Intake line ${suffix}` });
  await dialog.getByLabel("Data (JSON)").fill('{ "customer": "acme" }');
  await dialog.getByRole("button", { name: "Create task" }).click();
  const closed = page.getByRole("region", { name: "Closed" });
  await expect(closed.getByText(`Onboard ${suffix}`)).toBeVisible({ timeout: 30_000 });
  await expect(closed.getByText("completed")).toBeVisible();
  await closed.getByText(`Onboard ${suffix}`).click();
  const timeline = page.getByRole("dialog", { name: `Onboard ${suffix}` });
  await expect(timeline.getByText(/step finished/i)).toBeVisible();
  await timeline.getByRole("link", { name: "View run" }).first().click();
  await expect(page).toHaveURL(/\/runs\/run_/);
  await expect(page.getByTestId("run-status").first()).toHaveAttribute("data-status", "succeeded");
});
