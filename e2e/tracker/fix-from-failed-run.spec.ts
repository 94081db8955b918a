/**
 * The on-call path, keyboard first: an alert → ticket run failed overnight (Jira answered 400 on an issue
 * type the project does not have). From the runs list (filtered to failed ones) to the run, whose error
 * banner opens the failing node's settings in the editor; the fix is saved, the run retried on the
 * current version, and exactly one issue exists.
 */
import { test, expect } from "../fixtures";
import { createApp } from "../support/apps";
import { CanvasPage } from "../support/canvas-page";
import { connectTracker } from "../support/tracker-page";
import { startFakeAtlassian, type FakeAtlassian } from "../../integrations/tracker/testing/fake-atlassian/server";
import { DEMO } from "../../integrations/tracker/testing/fake-atlassian/seed";

// The on-call engineer is not in the server's time zone: times say which zone they are in.
test.use({ timezoneId: "America/New_York" });

let fake: FakeAtlassian;
test.beforeAll(async () => {
  fake = await startFakeAtlassian({ consentMode: "auto" });
});
test.afterAll(async () => {
  await fake?.stop();
});

test("from the failed run to the failing node's settings, fixed and retried once", async ({ page, api, seed }) => {
  test.setTimeout(120_000);
  const ws = seed.workspaceId;
  const suffix = Date.now().toString(36);
  const trackerName = `jira-fix-${suffix}`;
  await connectTracker(page, { workspaceId: ws, name: trackerName, fakeUrl: fake.url, consent: "auto" });
  const connections = (await (await api.get(`/api/v1/factories/${ws}/connections?limit=200`)).json()).data as Array<{ id: string; name: string }>;
  const app = await createApp(api, ws, {
    name: `Alert to ticket ${suffix}`,
    enabled: true,
    graph: {
      nodes: [
        { id: "n1", name: "alert", key: "core.manual", config: {}, position: { x: 0, y: 0 } },
        {
          id: "n2",
          name: "ticket",
          key: "tracker.createIssue",
          connectionId: connections.find((c) => c.name === trackerName)!.id,
          position: { x: 320, y: 0 },
          config: { project: "OPS", issueType: "Story", summary: `DiskFull ${suffix}` },
        },
      ],
      edges: [{ from: "n1", to: "n2" }],
    },
  });
  const started = await (await api.post(`/api/v1/factories/${ws}/apps/${app.id}/runs`, { data: { payload: { alertname: "DiskFull" } } })).json();
  await expect
    .poll(async () => (await (await api.get(`/api/v1/factories/${ws}/apps/${app.id}/runs/${started.id}`)).json()).status, { timeout: 30_000 })
    .toBe("failed");

  // Runs list, failed ones only, then the run.
  await page.goto(`/w/${ws}/runs`);
  await page.getByLabel("Status").selectOption("failed");
  await expect(page).toHaveURL(/status=failed/);
  const startedCell = page.getByTestId(`run-row-${started.id}`).getByTestId("run-started");
  await expect(startedCell).toContainText(/just now|min ago/);
  await expect(startedCell.locator("time")).toHaveAttribute("title", /EST|GMT-5/);
  await page.getByRole("link", { name: `Run ${started.id}` }).focus();
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(new RegExp(`/runs/${started.id}$`));
  await expect(page.getByTestId("run-error")).toContainText("Issue type Story is not one of project OPS's");

  // The error leads to where it is fixed: the ticket node's settings, open in the editor.
  const fix = page.getByTestId("fix-in-editor");
  await expect(fix).toHaveAccessibleName("Open ticket in the editor");
  await fix.focus();
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(new RegExp(`/automations/${app.id}$`));
  const canvas = new CanvasPage(page);
  await expect(canvas.panel()).toBeVisible();
  await expect(page.getByTestId("node-name-input")).toHaveValue("ticket");

  await canvas.field("issueType").locator("button[aria-haspopup=listbox]").click();
  await page.getByRole("option", { name: /^Task/ }).first().click();
  await canvas.save();
  await expect(page.getByTestId("save-state")).toHaveText(/Saved · v2/);

  await page.goto(`/w/${ws}/runs/${started.id}`);
  await page.getByTestId("retry-current").click();
  await expect(page.locator("header:has(h1)").getByTestId("run-status")).toHaveAttribute("data-status", "succeeded", { timeout: 30_000 });
  const issues = [...fake.state.site(DEMO.cloudId)!.issues.values()].filter((i) => i.summary === `DiskFull ${suffix}`);
  expect(issues).toHaveLength(1);
});
