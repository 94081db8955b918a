/**
 * The generic OAuth connect flow, started inline from a node's panel in the editor: the draft graph
 * survives the trip to the provider's consent page (fake Atlassian) and back; the account reaches two
 * sites, so the user picks one; the new connection lands on the node that asked for it. The dialog
 * shows the callback URL to register, and later the connected site and a working Test button.
 */
import { test, expect } from "../fixtures";
import { CanvasPage } from "../support/canvas-page";
import { startFakeAtlassian, type FakeAtlassian } from "../../integrations/tracker/testing/fake-atlassian/server";
import { DEMO } from "../../integrations/tracker/testing/fake-atlassian/seed";

let fake: FakeAtlassian;
test.beforeAll(async () => {
  fake = await startFakeAtlassian({ consentMode: "page", secondSite: true });
});
test.afterAll(async () => {
  await fake?.stop();
});

test("connect a tracker account from the node panel, choose the site, keep the draft", async ({ page, seed }) => {
  test.setTimeout(120_000);
  const conName = `globex-jira-${Date.now().toString(36)}`;
  await page.goto(`/w/${seed.workspaceId}/automations`);
  await page.getByTestId("new-automation").click();
  await page.locator("#new-automation-name").fill(`OAuth from the panel ${conName}`);
  await page.getByTestId("create-automation").click();
  await expect(page).toHaveURL(/\/automations\/aut_/);
  const editorUrl = page.url();
  const canvas = new CanvasPage(page);
  await page.getByTestId("palette-search").fill("on issue");
  await canvas.dragFromPalette("tracker.onIssue", { x: 200, y: 200 });
  await expect(page.getByTestId("save-state")).toHaveText(/Unsaved changes/);

  // Inline connect: the dialog shows the tracker's connection form.
  await canvas.panel().getByRole("button", { name: "New" }).click();
  const form = page.getByTestId("connection-form");
  // The callback URL to register in the vendor's console is shown, ready to copy.
  await expect(form.getByTestId("oauth-callback-url")).toHaveValue(new URL("/oauth/tracker/callback", page.url()).toString());
  await expect(form.getByTestId("copy-oauth-callback")).toBeVisible();
  await expect(form.getByTestId("oauth-callback")).toContainText("This address must open in your browser (its host is CONVEYOR_PUBLIC_URL).");
  await form.locator("#connection-name").fill(conName);
  await form.getByTestId("field-clientId").locator("input").fill(DEMO.clientId);
  await form.getByTestId("field-clientSecret").locator("input").fill(DEMO.clientSecret);
  await expect(form.getByTestId("field-clientSecret").locator("input")).toHaveAttribute("type", "password");
  await form.getByTestId("field-authBaseUrl").locator("input").fill(fake.url);
  await form.getByTestId("field-apiBaseUrl").locator("input").fill(fake.url);
  await form.getByTestId("connection-save").click();

  // The provider's consent page, then back in the editor with a site to choose.
  await expect(page.getByRole("button", { name: "Accept" })).toBeVisible({ timeout: 20_000 });
  expect(page.url()).toContain(`${fake.url}/authorize`);
  await page.getByRole("button", { name: "Accept" }).click();
  await expect(page).toHaveURL(editorUrl, { timeout: 20_000 });
  const sites = page.getByTestId("site-choices");
  await expect(sites.getByRole("button")).toHaveCount(2);
  await sites.getByRole("button", { name: /globex/ }).click();

  // The unsaved draft is back and the node uses the new connection.
  await expect(page.getByTestId("save-state")).toHaveText(/Unsaved changes/);
  await expect(canvas.nodeByName("onIssue")).toBeVisible();
  await expect(canvas.panel().getByTestId("node-connection-select").locator("option:checked")).toHaveText(conName);

  // On the Connections page it is ready, on the chosen site; its settings carry the ops switch.
  page.once("dialog", (d) => d.accept());
  await page.goto(`/w/${seed.workspaceId}/connections`);
  const card = page.getByTestId(`connection-${conName}`);
  await expect(card.getByTestId("connection-status")).toHaveText("ready");
  await expect(card.getByTestId("connection-site")).toContainText(/globex/i);
  await card.getByRole("button", { name: "Settings" }).click();
  await expect(page.getByTestId("field-enableOpsFeatures").getByRole("switch")).toBeVisible();
  // The dialog names the connected site and tests the connection against it.
  const settings = page.getByTestId("connection-form");
  await expect(settings.getByTestId("connection-site")).toContainText(/Connected to .*globex/i);
  await settings.getByTestId("connection-test").click();
  await expect(settings.getByTestId("verify-result")).toHaveClass(/bg-green-50/);
  await expect(settings.getByTestId("verify-result")).toContainText(/globex/i);
});
