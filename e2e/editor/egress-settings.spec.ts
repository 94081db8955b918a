/** An admin sets the egress policy in Settings; the API sees the same policy; a bad allow-list entry is shown on the field. */
import { test, expect } from "../fixtures";

test("admin refuses private networks with an allow-list entry, then restores the default", async ({ page, api, seed }) => {
  await page.goto(`/w/${seed.workspaceId}/settings`);
  const section = page.getByRole("region", { name: "Outbound network" });
  await expect(section).toContainText("cloud metadata endpoints");
  const allowPrivate = section.getByRole("checkbox", { name: /Allow loopback and private networks/ });
  await expect(allowPrivate).toBeChecked();

  await allowPrivate.uncheck();
  await section.getByLabel(/Always allowed/).fill("10.0.5.0/24\nnot-a-cidr");
  await section.getByRole("button", { name: "Save policy" }).click();
  await expect(section.locator(".field-error")).toContainText("allowList.1: An IP address or CIDR");

  await section.getByLabel(/Always allowed/).fill("10.0.5.0/24");
  await section.getByRole("button", { name: "Save policy" }).click();
  await expect(section).toContainText(/Saved by user:/);
  const saved = await (await api.get("/api/v1/settings/egress")).json();
  expect(saved).toMatchObject({ allowPrivateNetworks: false, allowList: ["10.0.5.0/24"], source: "saved" });

  // Restore what the other specs rely on (their fake upstreams live on loopback).
  await allowPrivate.check();
  await section.getByLabel(/Always allowed/).fill("");
  await section.getByRole("button", { name: "Save policy" }).click();
  await expect.poll(async () => (await (await api.get("/api/v1/settings/egress")).json()).allowPrivateNetworks).toBe(true);
});
