/**
 * On call at 3 a.m.: the sidebar's Runs item says how many runs failed in the last 24 hours in this
 * workspace, keeps it up to date by itself, and leads to the runs list filtered to failed runs. A
 * viewer sees it too.
 */
import { test, expect } from "../fixtures";
import { createApp } from "../support/apps";

test("the Runs item counts the last day's failed runs and opens them", async ({ page, browser, baseURL, api, probe }) => {
  test.setTimeout(120_000);
  const suffix = Date.now().toString(36);
  // A workspace of its own: the other specs' failures are elsewhere.
  const made = await api.post("/api/v1/factories", { data: { name: `Night shift ${suffix}` } });
  expect(made.status(), await made.text()).toBe(201);
  const ws = (await made.json()).id as string;
  const nav = page.getByRole("navigation", { name: "Workspace" });

  await page.goto(`/w/${ws}/automations`);
  await expect(nav.getByRole("link", { name: "Runs", exact: true })).toHaveAttribute("href", `/w/${ws}/runs`);
  await expect(nav.getByTestId("runs-failed-badge")).toHaveCount(0);

  const app = await createApp(api, ws, {
    name: `Nightly probe ${suffix}`,
    enabled: true,
    graph: {
      nodes: [
        { id: "n1", name: "start", key: "core.manual", config: {}, position: { x: 0, y: 0 } },
        // The probe answers 404 here: the step fails (4xx is not retried).
        { id: "n2", name: "probe", key: "core.http", config: { method: "GET", url: `${probe}/missing` }, position: { x: 320, y: 0 } },
      ],
      edges: [{ from: "n1", to: "n2" }],
    },
  });
  const failRun = async () => {
    const started = await (await api.post(`/api/v1/factories/${ws}/apps/${app.id}/runs`, { data: { payload: {} } })).json();
    await expect
      .poll(async () => (await (await api.get(`/api/v1/factories/${ws}/apps/${app.id}/runs/${started.id}`)).json()).status, { timeout: 30_000 })
      .toBe("failed");
  };
  await failRun();
  await failRun();

  await page.reload();
  const badged = (n: number) => nav.getByRole("link", { name: `Runs, ${n} failed in the last 24 hours` });
  await expect(badged(2)).toBeVisible();
  await expect(nav.getByTestId("runs-failed-badge")).toHaveText("2");

  // Another failure shows without a reload (the badge polls).
  await failRun();
  await expect(badged(3)).toBeVisible({ timeout: 45_000 });

  await badged(3).click();
  await expect(page).toHaveURL(new RegExp(`/w/${ws}/runs\\?status=failed$`));
  await expect(page.getByLabel("Status")).toHaveValue("failed");
  await expect(page.getByRole("link", { name: /Run run_/ })).toHaveCount(3);

  // A viewer sees it as well.
  const viewerContext = await browser.newContext({ baseURL, storageState: { cookies: [], origins: [] } });
  const viewer = await viewerContext.newPage();
  await viewer.goto("/sign-in");
  await viewer.getByLabel("Email").fill("viewer@example.test");
  await viewer.getByLabel("Password").fill("viewer password 1");
  await viewer.getByRole("button", { name: "Sign in" }).click();
  await expect(viewer).toHaveURL(/\/automations/);
  await viewer.goto(`/w/${ws}/automations`);
  await expect(viewer.getByRole("navigation", { name: "Workspace" }).getByRole("link", { name: "Runs, 3 failed in the last 24 hours" })).toBeVisible();
  await viewerContext.close();
});
