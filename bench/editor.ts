/**
 * Editor benchmark: a 200-node automation opened in Debian's Chromium (Playwright), then panning the
 * canvas and dragging a node while sampling frame times with requestAnimationFrame.
 *
 * Starts the built app (NEXT_DIST_DIR, default .next; run `npm run build` first) on a throwaway data dir,
 * or uses BENCH_BASE_URL + BENCH_EMAIL/BENCH_PASSWORD/BENCH_API_KEY/BENCH_WORKSPACE when given.
 * Prints one JSON line with the figures (scripts/bench.mjs convention).
 */
import { chromium, type Page } from "@playwright/test";
import { startApp } from "./app";

const NODES = Number(process.env.BENCH_NODES ?? 200);

function bigGraph(n: number) {
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

/** Frame times (ms) while `action` runs, sampled with requestAnimationFrame in the page. */
async function frames(page: Page, action: () => Promise<void>) {
  // Strings, not functions: tsx's name helpers (__name) do not exist in the page.
  await page.evaluate(`(() => {
    window.__frames = [];
    window.__stop = false;
    let last = performance.now();
    const tick = (t) => { window.__frames.push(t - last); last = t; if (!window.__stop) requestAnimationFrame(tick); };
    requestAnimationFrame(tick);
  })()`);
  await action();
  const list = (await page.evaluate(`(() => { window.__stop = true; return window.__frames.slice(2); })()`)) as number[];
  const sorted = [...list].sort((a, b) => a - b);
  const total = list.reduce((a, b) => a + b, 0);
  return {
    frames: list.length,
    fps: Math.round((list.length / total) * 1000),
    p50FrameMs: +sorted[Math.floor(sorted.length * 0.5)]!.toFixed(1),
    p95FrameMs: +sorted[Math.floor(sorted.length * 0.95)]!.toFixed(1),
    longFrames: list.filter((f) => f > 50).length,
  };
}

async function main() {
  const app = process.env.BENCH_BASE_URL
    ? { base: process.env.BENCH_BASE_URL, email: process.env.BENCH_EMAIL!, password: process.env.BENCH_PASSWORD!, apiKey: process.env.BENCH_API_KEY!, workspaceId: process.env.BENCH_WORKSPACE!, stop: () => {} }
    : await startApp("editor");
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium", args: ["--no-sandbox", "--headless", "--disable-gpu"] });
  try {
    const res = await fetch(`${app.base}/api/v1/factories/${app.workspaceId}/apps`, {
      method: "POST",
      headers: { authorization: `Bearer ${app.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ name: `Bench ${NODES} nodes`, graph: bigGraph(NODES) }),
    });
    if (res.status !== 201) throw new Error(`create automation: ${res.status} ${await res.text()}`);
    const automation = (await res.json()) as { id: string };

    const context = await browser.newContext({ baseURL: app.base, viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    await page.goto("/sign-in");
    await page.getByLabel("Email").fill(app.email);
    await page.getByLabel("Password").fill(app.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(/\/automations/);

    const url = `/w/${app.workspaceId}/automations/${automation.id}`;
    const open = async () => {
      const t0 = Date.now();
      await page.goto(url);
      // fitView on open shows the whole graph, so every node gets rendered.
      await page.waitForFunction(`document.querySelectorAll(".react-flow__node").length >= ${NODES}`, undefined, { timeout: 60_000, polling: 16 });
      await page.evaluate(`new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))`);
      const total = Date.now() - t0;
      const nav = (await page.evaluate(`(() => { const n = performance.getEntriesByType("navigation")[0]; return { responseEnd: Math.round(n.responseEnd), domContentLoaded: Math.round(n.domContentLoadedEventEnd) }; })()`)) as { responseEnd: number; domContentLoaded: number };
      breakdown.push({ totalMs: total, htmlMs: nav.responseEnd, domContentLoadedMs: nav.domContentLoaded });
      return total;
    };
    const breakdown: Array<{ totalMs: number; htmlMs: number; domContentLoadedMs: number }> = [];
    const coldMs = await open();
    const warmRuns = [await open(), await open(), await open()];
    const warmMs = Math.round(warmRuns.reduce((a, b) => a + b, 0) / warmRuns.length);

    const box = (await page.getByTestId("canvas").boundingBox())!;
    const cx = box.x + box.width / 2;
    const cy = box.y + box.height / 2;
    // Zoom in to a working scale first (fitView of 200 nodes is far out).
    await page.mouse.move(cx, cy);
    for (let i = 0; i < 6; i++) await page.mouse.wheel(0, -240);
    await page.waitForTimeout(300);
    const pan = await frames(page, async () => {
      await page.mouse.move(cx + 200, cy, { steps: 1 });
      await page.mouse.down();
      for (let i = 0; i < 3; i++) {
        await page.mouse.move(cx - 300, cy - 150, { steps: 40 });
        await page.mouse.move(cx + 300, cy + 150, { steps: 40 });
      }
      await page.mouse.up();
    });
    const node = page.locator(".react-flow__node").nth(0);
    const nb = (await node.boundingBox())!;
    const drag = await frames(page, async () => {
      await page.mouse.move(nb.x + 40, nb.y + 20);
      await page.mouse.down();
      for (let i = 0; i < 3; i++) {
        await page.mouse.move(nb.x + 340, nb.y + 180, { steps: 40 });
        await page.mouse.move(nb.x + 40, nb.y + 20, { steps: 40 });
      }
      await page.mouse.up();
    });
    console.log(JSON.stringify({ nodes: NODES, edges: NODES - 1, openColdMs: coldMs, openWarmMs: warmMs, openWarmRunsMs: warmRuns, breakdown, pan, drag }));
  } finally {
    await browser.close();
    app.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
