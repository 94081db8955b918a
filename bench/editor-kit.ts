/** Shared by the editor benches (bench/editor.ts, bench/editor-profile.mts). */
import type { Browser } from "@playwright/test";
import type { StartedApp } from "./app";

/** Signs the bench's owner in, in a fresh browser context (nothing cached). */
export async function signIn(browser: Browser, app: StartedApp) {
  const context = await browser.newContext({ baseURL: app.base, viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  await page.goto("/sign-in");
  await page.getByLabel("Email").fill(app.email);
  await page.getByLabel("Password").fill(app.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(/\/automations/);
  return { context, page };
}

/** The editor benches' automation of `n` nodes: a manual trigger and `n - 1` filters on a 20-column grid. */
export function bigGraph(n: number) {
  const cols = 20;
  const nodes = Array.from({ length: n }, (_, i) => ({
    id: `n${i}`,
    name: i === 0 ? "start" : `check${i}`,
    key: i === 0 ? "core.manual" : "core.filter",
    config: i === 0 ? {} : { condition: `{{ $trigger.data.value > ${i} }}` },
    position: { x: (i % cols) * 300, y: Math.floor(i / cols) * 140 },
  }));
  // A binary tree: every node is reachable from the trigger.
  const edges = nodes.slice(1).map((_, k) => ({ from: `n${Math.floor(k / 2)}`, to: `n${k + 1}` }));
  return { nodes, edges };
}
