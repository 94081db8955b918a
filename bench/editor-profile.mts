/**
 * Profiles one editor open (not a bench: no targets, prints a breakdown for docs/editor-bench.md).
 * Starts the built app (BUILD, default .next) on BENCH_PORT, creates an N-node automation (default 200, the
 * bench's generator), signs in with Chromium and opens the editor: cold (COLD=1 traces it), then twice warm
 * (the second traced). For a traced open it prints the renderer main thread's self time by trace event,
 * the JS fetched per chunk and every request with its timing; for every open, when the nodes were mounted
 * and the server process's CPU time (/proc, 10 ms ticks). CPU=1 adds a sampled JS profile of a warm open;
 * EXTRA_WARM=n more untraced warm opens. Traces and profiles are written to a temporary directory.
 *   BENCH_PORT=3918 BUILD=.next COLD=1 node --import tsx bench/editor-profile.mts
 */
import os from "node:os";
import fs from "node:fs";
import path from "node:path";
import { chromium } from "@playwright/test";
import { startApp } from "./app.ts";
import { bigGraph, signIn } from "./editor-kit.ts";

const N = Number(process.env.N ?? 200);
const build = process.env.BUILD ?? ".next";
const OUT = fs.mkdtempSync(path.join(os.tmpdir(), "editor-profile-"));
type Ev = { name: string; ph: string; ts: number; dur?: number; tid: number; pid: number; cat: string; args?: { name?: string; data?: { url?: string } } };
type Resource = { n: string; s: number; e: number; kb: number; dkb: number };
type Marks = { responseStart: number; responseEnd: number; dcl: number; load: number; fcp: number; r: Resource[] };
function summarize(trace: { traceEvents: Ev[] }, t0: number) {
  const evs = trace.traceEvents;
  const threads = new Map<string, string>();
  for (const e of evs) if (e.name === "thread_name") threads.set(`${e.pid}:${e.tid}`, e.args?.name ?? "");
  const main = [...threads].filter(([, n]) => n === "CrRendererMain").map(([k]) => k);
  const self = new Map<string, number>();
  let total = 0;
  for (const key of main) {
    const xs = evs.filter((e) => `${e.pid}:${e.tid}` === key && e.ph === "X" && e.dur && e.ts >= t0).sort((a, b) => a.ts - b.ts || b.dur! - a.dur!);
    const stack: Array<{ e: Ev; child: number }> = [];
    const close = (until: number) => {
      while (stack.length && stack[stack.length - 1]!.e.ts + stack[stack.length - 1]!.e.dur! <= until) {
        const s = stack.pop()!;
        const name =
          s.e.name === "FunctionCall" || s.e.name === "EvaluateScript" || s.e.name === "v8.compile"
            ? `${s.e.name} ${(s.e.args?.data?.url ?? "").split("/").pop()}`
            : s.e.name;
        self.set(name, (self.get(name) ?? 0) + (s.e.dur! - s.child));
        if (stack.length) stack[stack.length - 1]!.child += s.e.dur!;
        else total += s.e.dur!;
      }
    };
    for (const e of xs) {
      close(e.ts);
      stack.push({ e, child: 0 });
    }
    close(Infinity);
  }
  const rows = [...self]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 40)
    .map(([n, us]) => `${(us / 1000).toFixed(1).padStart(8)} ms  ${n}`);
  return `main-thread busy ${(total / 1000).toFixed(0)} ms\n` + rows.join("\n");
}

const app = await startApp("edprof", { NEXT_DIST_DIR: build });
const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox", "--headless", "--disable-gpu"] });
try {
  const res = await fetch(`${app.base}/api/v1/factories/${app.workspaceId}/apps`, {
    method: "POST",
    headers: { authorization: `Bearer ${app.apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "P", graph: bigGraph(N) }),
  });
  const a = (await res.json()) as { id: string };
  const { context, page } = await signIn(browser, app);
  const url = `/w/${app.workspaceId}/automations/${a.id}`;
  await page.addInitScript(`(() => {
    window.__added = 0; window.__removed = 0; window.__log = [];
    const t0 = performance.now();
    new MutationObserver((ms) => { let a = 0, r = 0; for (const m of ms) { for (const n of m.addedNodes) if (n.classList?.contains("react-flow__node")) a++; for (const n of m.removedNodes) if (n.classList?.contains("react-flow__node")) r++; } if (a || r) { window.__added += a; window.__removed += r; window.__log.push([Math.round(performance.now() - t0), a, r]); } }).observe(document, { childList: true, subtree: true });
  })()`);
  const cpuMs = () => {
    const f = fs.readFileSync(`/proc/${app.pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(f[11]) + Number(f[12])) * 10;
  };
  const open = async (label: string, trace: boolean) => {
    const cpu0 = cpuMs();
    if (trace)
      await browser.startTracing(page, {
        categories: ["devtools.timeline", "v8", "v8.execute", "disabled-by-default-devtools.timeline", "blink.user_timing", "loading"],
      });
    const t0 = Date.now();
    await page.goto(url);
    await page.waitForFunction(`document.querySelectorAll(".react-flow__node").length >= ${N}`, undefined, { timeout: 60000, polling: 16 });
    await page.evaluate(`new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))`);
    const ms = Date.now() - t0;
    const serverCpu = cpuMs() - cpu0;
    if (label === "warm1") console.log("HTML bytes", (await (await page.request.get(url)).text()).length);
    const marks = (await page.evaluate(
      `(() => { const n = performance.getEntriesByType("navigation")[0]; const r = performance.getEntriesByType("resource").map((e) => ({ n: e.name.replace(location.origin, "").slice(0, 90), s: Math.round(e.startTime), e: Math.round(e.responseEnd), kb: Math.round(e.encodedBodySize / 1024), dkb: Math.round(e.decodedBodySize / 1024) })); return { responseStart: Math.round(n.responseStart), responseEnd: Math.round(n.responseEnd), dcl: Math.round(n.domContentLoadedEventEnd), load: Math.round(n.loadEventEnd), fcp: Math.round(performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? -1), r }; })()`,
    )) as Marks;
    console.log("node mounts", await page.evaluate("JSON.stringify([window.__added, window.__removed, window.__log.slice(0, 12)])"));
    console.log(
      `== ${label}: ${ms} ms, server CPU ${serverCpu} ms, load ${os.loadavg()[0]!.toFixed(2)}; html ${marks.responseStart}-${marks.responseEnd}, DCL ${marks.dcl}, load ${marks.load}, FCP ${marks.fcp}`,
    );
    if (trace) {
      const buf = await browser.stopTracing();
      fs.writeFileSync(path.join(OUT, `${label}.trace.json`), buf);
      const tr = JSON.parse(buf.toString());
      console.log(summarize(tr, 0));
      const js = marks.r.filter((x) => x.n.includes(".js"));
      console.log(`JS: ${js.length} files, ${js.reduce((sum, x) => sum + x.kb, 0)} KB transferred, ${js.reduce((sum, x) => sum + x.dkb, 0)} KB decoded`);
      for (const x of marks.r) console.log(`  ${String(x.s).padStart(5)}-${String(x.e).padStart(5)} ${String(x.dkb).padStart(5)}KB ${x.n}`);
    }
  };
  if (process.env.COLD) await open("cold", true);
  else await open("cold", false);
  await open("warm1", false);
  await open("warm", true);
  for (let i = 0; i < Number(process.env.EXTRA_WARM ?? 0); i++) await open(`warm-extra${i}`, false);
  if (process.env.CPU) {
    const cdp = await context.newCDPSession(page);
    await cdp.send("Profiler.enable");
    await cdp.send("Profiler.setSamplingInterval", { interval: 200 });
    await cdp.send("Profiler.start");
    await open("warmcpu", false);
    const { profile } = await cdp.send("Profiler.stop");
    fs.writeFileSync(path.join(OUT, "warm.cpuprofile"), JSON.stringify(profile));
  }
} finally {
  await browser.close();
  app.stop();
  console.log(`traces and profiles: ${OUT}`);
}
