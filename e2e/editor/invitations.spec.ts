/** An admin finds a pending invitation in Settings, revokes it after a confirm, and its link then says it was revoked. */
import { test, expect } from "../fixtures";

test("a revoked invitation leaves the pending list and its link answers 'revoked'", async ({ page, seed, browser, baseURL }) => {
  await page.goto(`/w/${seed.workspaceId}/settings`);
  await page.getByLabel("Email (optional)").fill("leaked@example.test");
  await page.getByLabel("Role", { exact: true }).selectOption("admin");
  await page.getByRole("button", { name: "Create invitation link" }).click();
  const inviteUrl = (await page.getByTestId("invite-url").textContent())!;
  await expect(page.getByText(/Copy it now: it is not shown again/)).toBeVisible();

  const pending = page.getByTestId("pending-invitations");
  const row = pending.getByRole("row", { name: /leaked@example\.test/ });
  await expect(row).toContainText("admin");
  await expect(pending).not.toContainText(inviteUrl);

  // Dismissing the confirm keeps it; accepting revokes it.
  page.once("dialog", (d) => d.dismiss());
  await row.getByRole("button", { name: "Revoke invitation for leaked@example.test" }).click();
  await expect(row).toBeVisible();
  page.once("dialog", (d) => {
    expect(d.message()).toContain("Revoke the admin invitation for leaked@example.test?");
    return d.accept();
  });
  await row.getByRole("button", { name: "Revoke invitation for leaked@example.test" }).click();
  await expect(row).toHaveCount(0);

  const other = await browser.newContext({ baseURL });
  const visitor = await other.newPage();
  await visitor.goto(inviteUrl.replace(/^https?:\/\/[^/]+/, ""));
  await expect(visitor.getByRole("heading", { name: "Invitation revoked" })).toBeVisible();
  await expect(visitor.getByText(/was revoked by an admin/)).toBeVisible();
  await expect(visitor.getByRole("button", { name: "Create account" })).toHaveCount(0);
  await other.close();
});
