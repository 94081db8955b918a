/** Connects the tracker on the Connections page against the fake Atlassian (OAuth consent and back). */
import { expect, type Page } from "@playwright/test";
import { DEMO } from "../../integrations/tracker/testing/fake-atlassian/seed";

export async function connectTracker(
  page: Page,
  opts: { workspaceId: string; name: string; fakeUrl: string; ops?: boolean; consent: "page" | "auto" },
): Promise<void> {
  await page.goto(`/w/${opts.workspaceId}/connections`);
  await page.getByTestId("new-connection").click();
  await page.getByTestId("pick-integration-tracker").click();
  const form = page.getByTestId("connection-form");
  await form.locator("#connection-name").fill(opts.name);
  await form.getByTestId("field-clientId").locator("input").fill(DEMO.clientId);
  await form.getByTestId("field-clientSecret").locator("input").fill(DEMO.clientSecret);
  if (opts.ops) await form.getByTestId("field-enableOpsFeatures").getByRole("switch").click();
  await form.getByTestId("field-authBaseUrl").locator("input").fill(opts.fakeUrl);
  await form.getByTestId("field-apiBaseUrl").locator("input").fill(opts.fakeUrl);
  await form.getByTestId("connection-save").click();
  if (opts.consent === "page") {
    // The browser is on the provider's consent page: accept and come back.
    await expect(page.getByRole("button", { name: "Accept" })).toBeVisible({ timeout: 20_000 });
    expect(page.url()).toContain(`${opts.fakeUrl}/authorize`);
    await page.getByRole("button", { name: "Accept" }).click();
  }
  await expect(page).toHaveURL(/\/connections/, { timeout: 20_000 });
  await expect(page.getByTestId(`connection-${opts.name}`).getByTestId("connection-status")).toHaveText("ready", { timeout: 20_000 });
}
