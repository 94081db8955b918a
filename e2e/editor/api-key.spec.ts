/** An API key created in the UI is shown once, works against /api/v1, and stops working when revoked. */
import { test, expect } from "../fixtures";

test("create an API key in the UI and use it once", async ({ page, playwright, baseURL, seed }) => {
  await page.goto(`/w/${seed.workspaceId}/api-keys`);
  await page.getByTestId("new-api-key").click();
  await page.getByLabel("Name").fill("e2e ui key");
  await page.getByLabel("Role").selectOption("viewer");
  await page.getByRole("button", { name: "Create key" }).click();
  const key = await page.getByTestId("created-api-key").inputValue();
  expect(key.length).toBeGreaterThan(20);
  await page.getByRole("button", { name: "Done" }).click();
  await expect(page.getByTestId("api-key-row-e2e ui key")).toContainText("Never");
  await expect(page.getByTestId("api-key-row-e2e ui key")).toContainText("1 workspace");
  await expect(page.getByTestId("api-key-row-e2e ui key")).not.toContainText("workspace(s)");

  const api = await playwright.request.newContext({ baseURL, extraHTTPHeaders: { Authorization: `Bearer ${key}` } });
  const res = await api.get(`/api/v1/factories/${seed.workspaceId}`);
  expect(res.status()).toBe(200);
  expect((await res.json()).id).toBe(seed.workspaceId);

  await page.reload();
  await expect(page.getByTestId("api-key-row-e2e ui key")).not.toContainText("Never");
  page.once("dialog", (d) => d.accept());
  await page.getByTestId("api-key-row-e2e ui key").getByRole("button", { name: "Revoke" }).click();
  await expect(page.getByTestId("api-key-row-e2e ui key")).toContainText("revoked");
  expect((await api.get(`/api/v1/factories/${seed.workspaceId}`)).status()).toBe(401);
  await api.dispose();
});
