/**
 * Turning on "Enable ops features" on a connected tracker goes through Atlassian's consent again ("Save and
 * reconnect"), so the operations scopes are granted: a plain "Save" kept the old token, and every ops step
 * then failed with "scope does not match" while the card offered no way to reconnect. Changing only the
 * name still just saves. A connected account can also be reconnected from its card.
 */
import { test, expect } from "../fixtures";
import { connectTracker } from "../support/tracker-page";
import { startFakeAtlassian, type FakeAtlassian } from "../../integrations/tracker/testing/fake-atlassian/server";
import { OPS_SCOPES } from "../../integrations/tracker/connection";

let fake: FakeAtlassian;
test.beforeAll(async () => {
  fake = await startFakeAtlassian({ consentMode: "page" });
});
test.afterAll(async () => {
  await fake?.stop();
});

test("turning on ops features on a connected tracker asks for the consent again and grants the ops scopes", async ({ page, seed }) => {
  test.setTimeout(90_000);
  const name = `acme-ops-${Date.now().toString(36)}`;
  await connectTracker(page, { workspaceId: seed.workspaceId, name, fakeUrl: fake.url, consent: "page" });
  const latestScopes = () => [...fake.state.accessTokens.values()].at(-1)?.scopes ?? [];
  expect(latestScopes()).not.toContain(OPS_SCOPES[0]);

  const card = page.getByTestId(`connection-${name}`);
  const form = page.getByTestId("connection-form");
  // Opening the settings of a connected account and changing nothing leaves a plain Save.
  await card.getByRole("button", { name: "Settings" }).click();
  await expect(form.getByTestId("connection-save")).toHaveText("Save");
  await form.getByTestId("field-enableOpsFeatures").getByRole("switch").click();
  await expect(form.getByTestId("connection-save")).toHaveText("Save and reconnect");
  await form.getByTestId("connection-save").click();

  await expect(page.getByRole("button", { name: "Accept" })).toBeVisible({ timeout: 20_000 });
  await expect(page.getByText(OPS_SCOPES[0])).toBeVisible();
  await page.getByRole("button", { name: "Accept" }).click();
  await expect(page).toHaveURL(/\/connections/, { timeout: 20_000 });
  await expect(card.getByTestId("connection-status")).toHaveText("ready");
  expect(latestScopes()).toEqual(expect.arrayContaining([...OPS_SCOPES]));
});

test("a connected tracker's card offers Reconnect: the consent again, back ready with a new token", async ({ page, seed }) => {
  test.setTimeout(60_000);
  const name = `acme-again-${Date.now().toString(36)}`;
  await connectTracker(page, { workspaceId: seed.workspaceId, name, fakeUrl: fake.url, consent: "page" });
  const tokens = fake.state.accessTokens.size;
  const card = page.getByTestId(`connection-${name}`);
  await card.getByRole("button", { name: "Reconnect" }).click();
  await page.getByRole("button", { name: "Accept" }).click({ timeout: 20_000 });
  await expect(page).toHaveURL(/\/connections/, { timeout: 20_000 });
  await expect(card.getByTestId("connection-status")).toHaveText("ready");
  expect(fake.state.accessTokens.size).toBe(tokens + 1);
});
