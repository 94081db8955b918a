/**
 * PostgreSQL stops under a running scale-out Conveyor: an editor page says the database cannot be
 * reached (in the app's own styles, no stack or driver detail), retries by itself, and opens as soon
 * as PostgreSQL is back. Before: Next's bare "Internal Server Error" page, which never recovered.
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
