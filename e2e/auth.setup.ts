/**
 * First visit on an empty installation → owner set-up → create a workspace → sign out → sign in →
 * the workspace is still there. Then a viewer (invited by link) cannot create a workspace: the UI
 * hides it and the server refuses it. Saves the owner's signed-in state for the other specs.
 */
import { test as setup, expect } from "@playwright/test";
import { OWNER_STATE, cli, writeSeed } from "./support/seed";

const email = "owner@example.test";
const password = "correct horse battery";

setup("owner set-up, workspaces, sign out/in, viewer limits", async ({ page, browser, baseURL }) => {
  await page.goto("/");
  await expect(page).toHaveURL(/\/setup$/);
  await page.getByLabel("Your name").fill("Olive Owner");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill("short");
  await page.getByRole("button", { name: "Create account" }).click();
  await expect(page.getByText("The password needs at least 8 characters.")).toBeVisible();
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Create account" }).click();
  await expect(page).toHaveURL(/\/w\/ws_[a-z0-9]+\/automations/);
  const workspaceId = /\/w\/(ws_[a-z0-9]+)\//.exec(page.url())![1]!;

  // Create a second workspace from the switcher.
  await page.getByTestId("workspace-switcher").click();
  await page.getByRole("button", { name: "New workspace" }).click();
  await page.getByLabel("Workspace name").fill("On-call EU");
  await page.getByRole("button", { name: "Create workspace" }).click();
  await expect(page.getByTestId("workspace-switcher")).toHaveText(/On-call EU/);

  // Sign out, sign back in: the workspace is there.
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/sign-in/);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill("wrong password");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByTestId("form-error")).toHaveText("Wrong email or password.");
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/automations/);
  await page.getByTestId("workspace-switcher").click();
  await expect(page.getByRole("option", { name: "On-call EU" })).toBeVisible();
  await page.keyboard.press("Escape");

  // Invite a viewer by link.
  await page.goto(`/w/${workspaceId}/settings`);
  await page.getByLabel("Role", { exact: true }).selectOption("viewer");
  await page.getByRole("button", { name: "Create invitation link" }).click();
  const inviteUrl = (await page.getByTestId("invite-url").textContent())!;
  await page.context().storageState({ path: OWNER_STATE });

  const viewerContext = await browser.newContext({ baseURL });
  const viewer = await viewerContext.newPage();
  await viewer.goto(inviteUrl.replace(/^https?:\/\/[^/]+/, ""));
  await viewer.getByLabel("Email").fill("viewer@example.test");
  await viewer.getByLabel("Password").fill("viewer password 1");
  await viewer.getByRole("button", { name: "Create account" }).click();
  await expect(viewer).toHaveURL(/\/automations/);
  await viewer.getByTestId("workspace-switcher").click();
  await expect(viewer.getByRole("option").first()).toBeVisible();
  await expect(viewer.getByRole("button", { name: "New workspace" })).toHaveCount(0);
  // The server refuses it too (tRPC mutation with the viewer's session cookie).
  const refused = await viewer.request.post("/api/trpc/workspaces.create", { data: { name: "sneaky" }, headers: { "content-type": "application/json" } });
  expect(refused.status()).toBe(403);
  expect(await refused.text()).toContain("does not allow workspace.create");
  await viewerContext.close();

  const apiKey = cli(["keys", "create", "--name", "e2e admin", "--role", "admin"]);
  writeSeed({ email, password, workspaceId, apiKey });
});
