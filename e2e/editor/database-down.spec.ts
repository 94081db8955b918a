/**
 * PostgreSQL stops under a running scale-out Conveyor: an editor page says the database cannot be
 * reached (in the app's own styles, no stack or driver detail), retries by itself, and opens as soon
 * as PostgreSQL is back. Before: Next's bare "Internal Server Error" page, which never recovered.
 * A page that loads its data in the browser (the runs list), open when PostgreSQL stops, says the
 * same inline and fills in again by itself. Before: "Could not load runs: connect ECONNREFUSED …".
 */
import { test, expect } from "@playwright/test";
import { startScaleOutApp, type ScaleOutApp } from "../support/scale-out-app";

let app: ScaleOutApp;

test.beforeAll(async () => {
  test.setTimeout(120_000);
  app = await startScaleOutApp();
});

test.afterAll(async () => {
  await app?.stop();
});

test("PostgreSQL down: the page says so, retries by itself and opens once the database is back", async ({ browser }) => {
  // A fresh context: nothing of the main e2e server's session.
  const context = await browser.newContext({ storageState: undefined });
  const page = await context.newPage();
  try {
    app.pg.halt("immediate");
    const response = await page.goto(`${app.base}/`);
    expect(response?.status()).toBe(500);

    const notice = page.getByTestId("page-error");
    await expect(notice).toHaveAttribute("data-kind", "database-unavailable");
    await expect(notice.getByRole("heading")).toHaveText("Conveyor cannot reach its database right now");
    await expect(notice).toContainText("This page retries by itself");
    await expect(page.getByTestId("page-error-reference")).toContainText(/conveyor-db-unavailable:[0-9a-f]{8}/);
    // Styled by the app (its stylesheet is loaded), and nothing internal shown.
    await expect(notice).toHaveCSS("border-radius", "8px");
    await expect(notice.getByRole("button", { name: "Try again" })).toHaveCSS("color", "rgb(255, 255, 255)");
    const text = await page.locator("body").innerText();
    expect(text).not.toMatch(/ECONNREFUSED|Failed query|select |at .*\.js|postgres:\/\//i);

    // "Try again" while it is still down: the same message (a fresh reference), not a crash.
    const firstRef = await page.getByTestId("page-error-reference").innerText();
    await notice.getByRole("button", { name: "Try again" }).click();
    await expect(page.getByTestId("page-error-reference")).not.toHaveText(firstRef);
    await expect(notice).toHaveAttribute("data-kind", "database-unavailable");

    // Back: the page retries by itself and `/` goes where it would have (an empty installation: set-up).
    await app.pg.restart();
    await expect(page).toHaveURL(/\/setup$/, { timeout: 30_000 });
    await expect(page.getByTestId("page-error")).toHaveCount(0);
  } finally {
    await context.close();
  }
});

test("PostgreSQL down under an open runs list: the same message inline, retried, gone once the database is back", async ({ browser }) => {
  test.setTimeout(120_000);
  const context = await browser.newContext({ storageState: undefined });
  const page = await context.newPage();
  try {
    // The installation's owner (the first test left it empty), then the runs list, loaded in the browser.
    await page.goto(`${app.base}/`);
    await expect(page).toHaveURL(/\/setup$/, { timeout: 30_000 });
    await page.getByLabel("Your name").fill("Dana Down");
    await page.getByLabel("Email").fill("down@example.test");
    await page.getByLabel("Password").fill("correct horse battery");
    await page.getByRole("button", { name: "Create account" }).click();
    await expect(page).toHaveURL(/\/w\/ws_[a-z0-9]+\/automations/);
    const workspaceId = /\/w\/(ws_[a-z0-9]+)\//.exec(page.url())![1]!;
    await page.goto(`${app.base}/w/${workspaceId}/runs`);
    await expect(page.getByTestId("runs-empty")).toContainText("No runs yet");

    app.pg.halt("immediate");
    const notice = page.getByTestId("database-unavailable");
    await expect(notice).toBeVisible({ timeout: 30_000 });
    await expect(notice.getByRole("heading")).toHaveText("Conveyor cannot reach its database right now");
    await expect(notice).toContainText("This page retries by itself every 5 seconds");
    await expect(notice).toHaveCSS("border-radius", "8px");
    // The page itself stays (its header and filters), and nothing internal is shown.
    await expect(page.getByRole("heading", { name: "Runs" })).toBeVisible();
    const text = await page.locator("body").innerText();
    expect(text).not.toMatch(/ECONNREFUSED|Failed query|select |at .*\.js|postgres:\/\/|Could not load runs/i);

    // Back: the list asks again by itself and the notice goes.
    await app.pg.restart();
    await expect(notice).toHaveCount(0, { timeout: 30_000 });
    await expect(page.getByTestId("runs-empty")).toContainText("No runs yet");
  } finally {
    await context.close();
  }
});
