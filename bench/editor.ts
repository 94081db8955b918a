/**
 * Editor benchmark: automations of 200 and 1,000 nodes (BENCH_NODES) opened in Debian's Chromium
 * (Playwright), then panning the canvas (at a working zoom, and with the whole graph in view) and
 * dragging a node while sampling frame times with requestAnimationFrame.
 *
 * Builds: BENCH_EDITOR_BUILDS (comma-separated dist dirs, e.g. `.next-base,.next`: the previous build
 * measured in the same run, one after the other, with the load average of each) or NEXT_DIST_DIR
 * (default .next; run `npm run build` first). Each build runs on its own throwaway data dir.
 * Prints one JSON line with the figures (scripts/bench.mjs convention).
 */
import os from "node:os";
import { chromium, type Browser, type Page } from "@playwright/test";
import { startApp, type StartedApp } from "./app";
import { bigGraph, signIn } from "./editor-kit";

const SIZES = (process.env.BENCH_NODES ?? "200,1000").split(",").map(Number);
const BUILDS = (process.env.BENCH_EDITOR_BUILDS ?? process.env.NEXT_DIST_DIR ?? ".next").split(",");

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

/** Pans the canvas around its centre: 6 sweeps of 40 pointer moves. */
async function pan(page: Page, cx: number, cy: number) {
  return frames(page, async () => {
    await page.mouse.move(cx + 200, cy, { steps: 1 });
    await page.mouse.down();
    for (let i = 0; i < 3; i++) {
      await page.mouse.move(cx - 300, cy - 150, { steps: 40 });
      await page.mouse.move(cx + 300, cy + 150, { steps: 40 });
    }
    await page.mouse.up();
  });
}

async function scenario(browser: Browser, app: StartedApp, n: number) {
  const res = await fetch(`${app.base}/api/v1/factories/${app.workspaceId}/apps`, {
    method: "POST",
    headers: { authorization: `Bearer ${app.apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ name: `Bench ${n} nodes`, graph: bigGraph(n) }),
  });
  if (res.status !== 201) throw new Error(`create automation: ${res.status} ${await res.text()}`);
  const automation = (await res.json()) as { id: string };
  // A fresh context: its first open of the editor downloads and compiles the editor's code (cold).
  const { context, page } = await signIn(browser, app);
  try {
    const url = `/w/${app.workspaceId}/automations/${automation.id}`;
    const breakdown: Array<{ totalMs: number; htmlMs: number; domContentLoadedMs: number; mainThreadMs: number }> = [];
    // The renderer's main-thread busy time (Chrome's TaskDuration) during an open: on a shared machine the
    // wall clock mostly measures how long the page waited for a core, this measures what it asked for.
    const cdp = await context.newCDPSession(page);
    await cdp.send("Performance.enable");
    const taskSeconds = async () => (await cdp.send("Performance.getMetrics")).metrics.find((m) => m.name === "TaskDuration")?.value ?? 0;
    const open = async () => {
      const busy0 = await taskSeconds();
      const t0 = Date.now();
      await page.goto(url);
      // fitView on open shows the whole graph, so every node gets rendered.
      await page.waitForFunction(`document.querySelectorAll(".react-flow__node").length >= ${n}`, undefined, { timeout: 60_000, polling: 16 });
      await page.evaluate(`new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))`);
      const total = Date.now() - t0;
      const nav = (await page.evaluate(
        `(() => { const n = performance.getEntriesByType("navigation")[0]; return { responseEnd: Math.round(n.responseEnd), domContentLoaded: Math.round(n.domContentLoadedEventEnd) }; })()`,
      )) as { responseEnd: number; domContentLoaded: number };
      const busy1 = await taskSeconds();
      // A navigation may start a new renderer (its counter starts at zero).
      const mainThreadMs = Math.round((busy1 >= busy0 ? busy1 - busy0 : busy1) * 1000);
      breakdown.push({ totalMs: total, htmlMs: nav.responseEnd, domContentLoadedMs: nav.domContentLoaded, mainThreadMs });
      return total;
    };
    const coldMs = await open();
    const warmRuns = [await open(), await open(), await open()];
    const warmMs = Math.round(warmRuns.reduce((a, b) => a + b, 0) / warmRuns.length);

    const box = (await page.getByTestId("canvas").boundingBox())!;
    const cx = box.x + box.width / 2;
    const cy = box.y + box.height / 2;
    await page.mouse.move(cx, cy);
    // With the whole graph in view (the fit on open): every node and edge is on screen.
    await page.waitForTimeout(300);
    const panFitted = await pan(page, cx, cy);
    // Then at a working scale (fitView of a big graph is far out).
    for (let i = 0; i < 6; i++) await page.mouse.wheel(0, -240);
    await page.waitForTimeout(300);
    const panZoomed = await pan(page, cx, cy);
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
    const busy = breakdown.map((b) => b.mainThreadMs);
    const mainThread = { coldMs: busy[0]!, warmMs: Math.round((busy[1]! + busy[2]! + busy[3]!) / 3) };
    return {
      nodes: n,
      edges: n - 1,
      openColdMs: coldMs,
      openWarmMs: warmMs,
      openWarmRunsMs: warmRuns,
      openMainThreadMs: mainThread,
      breakdown,
      panFitted,
      pan: panZoomed,
      drag,
    };
  } finally {
    await context.close();
  }
}

async function main() {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: ["--no-sandbox", "--headless", "--disable-gpu"],
  });
  const builds = [];
  try {
    for (const build of BUILDS) {
      const app = process.env.BENCH_BASE_URL
        ? {
            base: process.env.BENCH_BASE_URL,
            email: process.env.BENCH_EMAIL!,
            password: process.env.BENCH_PASSWORD!,
            apiKey: process.env.BENCH_API_KEY!,
            workspaceId: process.env.BENCH_WORKSPACE!,
            pid: 0,
            stop: () => {},
          }
        : await startApp("editor", { NEXT_DIST_DIR: build });
      try {
        const loadBefore = os.loadavg()[0]!;
        const scenarios = [];
        for (const n of SIZES) {
          scenarios.push(await scenario(browser, app, n));
          process.stderr.write(`editor ${build} ${n}: ${JSON.stringify(scenarios[scenarios.length - 1])}\n`);
        }
        builds.push({ build, loadAverage: [+loadBefore.toFixed(2), +os.loadavg()[0]!.toFixed(2)], scenarios });
      } finally {
        app.stop();
      }
    }
  } finally {
    await browser.close();
  }
  // The last build listed is the one measured (the earlier ones are for comparison).
  const current = builds[builds.length - 1]!;
  console.log(JSON.stringify({ ...current.scenarios[0], scenarios: current.scenarios, builds }));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
