/**
 * The JSM and Ops units in the browser: connect the tracker with ops features against the fake Atlassian
 * (consent and back), build `tracker.onAlert → tracker.createIncident → tracker.updateAlert (acknowledge)`
 * on the canvas with real drags, save and enable, then raise an alert in the fake: the fake delivers
 * to the app's webhook URL and the run succeeds; the incident exists and the alert is acknowledged.
 */
import { test, expect } from "../fixtures";
import { CanvasPage } from "../support/canvas-page";
import { connectTracker } from "../support/tracker-page";
import { startFakeAtlassian, type FakeAtlassian } from "../../integrations/tracker/testing/fake-atlassian/server";
import { DEMO } from "../../integrations/tracker/testing/fake-atlassian/seed";
import { JSM_DEMO, opsStateOf } from "../../integrations/tracker/testing/fake-atlassian/jsm/wiring";
import { OPS_SCOPES } from "../../integrations/tracker/connection";

let fake: FakeAtlassian;
test.beforeAll(async () => {
  fake = await startFakeAtlassian({ consentMode: "auto" });
});
test.afterAll(async () => {
  await fake?.stop();
});

test("onAlert → createIncident → updateAlert (acknowledge) runs when an alert is created in the fake", async ({ page, seed }) => {
  test.setTimeout(120_000);
  const conName = `acme-ops-${Date.now().toString(36)}`;

  // 1. Connect the tracker with ops features on, through the OAuth consent of the fake.
  await connectTracker(page, { workspaceId: seed.workspaceId, name: conName, fakeUrl: fake.url, ops: true, consent: "auto" });

  // 2. Build the automation on the canvas.
  const canvas = new CanvasPage(page);
  const automationId = await canvas.create(seed.workspaceId, `Alert to incident ${conName}`);
  const search = page.getByTestId("palette-search");
  await search.fill("alert");
  await canvas.dragFromPalette("tracker.onAlert", { x: 140, y: 90 });
  await search.fill("incident");
  await canvas.dragFromPalette("tracker.createIncident", { x: 140, y: 290 });
  await search.fill("update alert");
  await canvas.dragFromPalette("tracker.updateAlert", { x: 140, y: 490 });
  // Drops shift the viewport; tidy up so the three nodes do not overlap before wiring them.
  await canvas.deselect();
  await page.getByTestId("tidy").click();
  await canvas.connect("onAlert", "createIncident");
  await canvas.connect("createIncident", "updateAlert");
  await expect(canvas.edges()).toHaveCount(2);

  const useConnection = async (node: string) => {
    await canvas.select(node);
    await canvas.panel().getByTestId("node-connection-select").selectOption({ label: conName });
  };
  const pick = async (field: string, option: RegExp) => {
    await canvas.field(field).locator("button[aria-haspopup=listbox]").click();
    await page.getByRole("option", { name: option }).click();
  };
  const custom = async (field: string, value: string) => {
    await canvas.field(field).locator("button[aria-haspopup=listbox]").click();
    await page.getByLabel("Search options").fill(value);
    await page.getByLabel("Search options").press("Enter");
  };

  await useConnection("onAlert");
  await useConnection("createIncident");
  await pick("serviceDesk", /IT Service Desk/);
  await pick("requestType", /Report a system problem/);
  await canvas.field("summary").locator("input").fill("Alert raised in operations");
  await useConnection("updateAlert");
  await custom("alert", "{{ $trigger.data.alert.alertId }}");
  const ack = canvas.panel().getByTestId("section-acknowledge");
  await ack.getByRole("switch", { name: "Enable Acknowledge alert" }).click();
  const inner = ack.getByRole("switch", { name: "Acknowledge alert", exact: true });
  if ((await inner.getAttribute("aria-checked")) !== "true") await inner.click();

  await page.getByTestId("save").click();
  await expect(page.getByTestId("save-state")).toContainText("Saved", { timeout: 15_000 });
  await expect(page.getByTestId("problem-count")).toHaveCount(0);
  // Reopened, the service desk shows its name (the project key is what is stored).
  await canvas.select("onAlert");
  await canvas.select("createIncident");
  await expect(canvas.field("serviceDesk").locator("button[aria-haspopup=listbox]")).toHaveText("IT Service Desk (SD)");
  await page.getByTestId("enabled-switch").click();
  await expect(page.getByTestId("enabled-switch")).toHaveAttribute("aria-checked", "true");

  // Enabling registered the trigger's own outgoing webhook integration in the operations module.
  const site = opsStateOf(fake.state).site(DEMO.cloudId);
  await expect.poll(() => site.integrations.size, { timeout: 15_000 }).toBe(1);

  // 3. A monitoring tool raises an alert in the fake: the run starts and succeeds.
  fake.state.grants.set(`${DEMO.clientId}:${DEMO.users.ravi}`, new Set([DEMO.cloudId]));
  const token = fake.state.issueTokens(DEMO.clientId, DEMO.users.ravi, [...OPS_SCOPES]).access_token;
  const res = await fetch(`${fake.url}/jsm/ops/api/${DEMO.cloudId}/v1/alerts`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ message: "Disk full on db-1", priority: "P2" }),
  });
  expect(res.status).toBe(200);

  await page.goto(`/w/${seed.workspaceId}/runs?automationId=${automationId}`);
  await expect(page.getByTestId("run-status").first()).toHaveAttribute("data-status", "succeeded", { timeout: 45_000 });

  const alert = [...site.alerts.values()].find((a) => a.message === "Disk full on db-1")!;
  expect(alert).toMatchObject({ acknowledged: true, status: "acked" });
  const incidents = [...fake.state.site(DEMO.cloudId)!.issues.values()].filter((i) => i.projectId === JSM_DEMO.projectId);
  expect(incidents.map((i) => i.summary)).toContain("Alert raised in operations");
});
