/**
 * The Jira units in the browser: connect the tracker against the fake Atlassian (OAuth consent page and back),
 * build `tracker.onIssue → tracker.transitionIssue` on the canvas with real drags, save and enable (the
 * connection's shared Jira webhook is registered in the fake), then create an issue in the fake: the fake
 * delivers to the app's shared intake and the run transitions the issue to "In Progress".
 */
import { test, expect } from "../fixtures";
import { CanvasPage } from "../support/canvas-page";
import { connectTracker } from "../support/tracker-page";
import { startFakeAtlassian, type FakeAtlassian } from "../../integrations/tracker/testing/fake-atlassian/server";
import { DEMO } from "../../integrations/tracker/testing/fake-atlassian/seed";

let fake: FakeAtlassian;
test.beforeAll(async () => {
  // The consent page (not auto-consent): the browser goes to the fake, clicks Accept and comes back.
  fake = await startFakeAtlassian({ consentMode: "page" });
});
test.afterAll(async () => {
  await fake?.stop();
});

test("onIssue → transitionIssue moves an issue created in the tracker", async ({ page, seed }) => {
  test.setTimeout(120_000);
  const conName = `acme-jira-${Date.now().toString(36)}`;

  // 1. Connect through the OAuth consent of the fake.
  await connectTracker(page, { workspaceId: seed.workspaceId, name: conName, fakeUrl: fake.url, consent: "page" });

  // 2. Build the automation on the canvas.
  const canvas = new CanvasPage(page);
  const automationId = await canvas.create(seed.workspaceId, `Pick up issues ${conName}`);
  const search = page.getByTestId("palette-search");
  await search.fill("on issue");
  await canvas.dragFromPalette("tracker.onIssue", { x: 140, y: 160 });
  await search.fill("transition");
  await canvas.dragFromPalette("tracker.transitionIssue", { x: 460, y: 160 });
  await canvas.connect("onIssue", "transitionIssue");
  await expect(canvas.edges()).toHaveCount(1);

  const useConnection = async (node: string) => {
    await canvas.select(node);
    await canvas.panel().getByTestId("node-connection-select").selectOption({ label: conName });
  };
  const pick = async (field: string, option: RegExp) => {
    await canvas.field(field).locator("button[aria-haspopup=listbox]").click();
    await page.getByRole("option", { name: option }).first().click();
  };
  const custom = async (field: string, value: string) => {
    await canvas.field(field).locator("button[aria-haspopup=listbox]").click();
    await page.getByLabel("Search options").fill(value);
    await page.getByLabel("Search options").press("Enter");
  };

  await useConnection("onIssue");
  await pick("project", /Operations \(OPS\)/);
  await useConnection("transitionIssue");
  await pick("project", /Operations \(OPS\)/); // narrows the issue and status pickers
  await custom("issueKey", "{{ $trigger.data.issue.key }}");
  await pick("targetStatus", /^In Progress/);
  await canvas.field("comment").locator("textarea").fill("Picked up by Conveyor");

  await page.getByTestId("save").click();
  await expect(page.getByTestId("save-state")).toContainText("Saved", { timeout: 15_000 });
  await expect(page.getByTestId("problem-count")).toHaveCount(0);
  await page.getByTestId("enabled-switch").click();
  await expect(page.getByTestId("enabled-switch")).toHaveAttribute("aria-checked", "true");

  // Enabling registered the connection's shared Jira webhook in the fake.
  const site = fake.state.site(DEMO.cloudId)!;
  await expect.poll(() => site.webhooks.size, { timeout: 15_000 }).toBe(1);
  expect([...site.webhooks.values()][0]).toMatchObject({ events: ["jira:issue_created"], jqlFilter: 'project IN ("OPS")' });

  // 3. Somebody creates an issue in the tracker: the run transitions it.
  const issue = site.createIssue(
    {
      projectId: DEMO.projects.ops,
      issueTypeId: DEMO.issueTypes.task,
      summary: "Checkout is slow",
      description: null,
      reporterId: DEMO.users.ravi,
      labels: [],
    },
    DEMO.users.ravi,
  );
  await page.goto(`/w/${seed.workspaceId}/runs?automationId=${automationId}`);
  await expect(page.getByTestId("run-status").first()).toHaveAttribute("data-status", "succeeded", { timeout: 45_000 });
  expect(site.statuses.get(site.issue(issue.key)!.statusId)!.name).toBe("In Progress");
  expect(site.issue(issue.key)!.comments).toHaveLength(1);
});
