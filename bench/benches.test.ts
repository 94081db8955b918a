/**
 * `npm run bench` keeps working: each engine bench runs end to end at a tiny size and prints the
 * result line that scripts/bench.mjs renders. Nothing here is timed (the figures come from
 * `npm run bench`); it catches a bench that no longer runs against the code (bench/history.ts stopped
 * at its first call once cursors were bound to their list, and nothing noticed for two sessions).
 * bench/ingest.ts is left out: it installs Node-RED from the npm registry and takes the machine's two
 * cores with wrk for its whole run.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "..");
const BACKEND = process.env.CONVEYOR_TEST_BACKEND === "postgres" ? "postgres" : "sqlite";

/** Runs a bench file as scripts/bench.mjs does (its own Node process); its last JSON line. */
function bench(file: string, env: Record<string, string>): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--max-semi-space-size=16", "--expose-gc", "--import", "tsx", file], {
      cwd: ROOT,
      env: { ...process.env, LOG_LEVEL: "silent", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (err = (err + d.toString()).slice(-4000)));
    child.on("error", reject);
    child.on("exit", (code) => {
      const line = out
        .trim()
        .split("\n")
        .filter((l) => l.startsWith("{"))
        .pop();
      if (code !== 0 || !line) return reject(new Error(`${file} exited ${code}:\n${err}`));
      resolve(JSON.parse(line) as Record<string, unknown>);
    });
  });
}

describe(`the benches run (${BACKEND})`, () => {
  it("bench/history.ts: every timed call answers at one small scale, with sizes and plans", async () => {
    const r = (await bench("bench/history.ts", { BENCH_BACKEND: BACKEND, BENCH_SCALES: "1000", BENCH_SAMPLES: "3" })) as {
      backend: string;
      results: Array<{ runs: number; bytesPerRun: number; timings: Record<string, { n: number }>; plans: Record<string, unknown[]> }>;
    };
    expect(r.backend).toBe(BACKEND);
    expect(r.results).toHaveLength(1);
    const [at] = r.results;
    expect(at!.runs).toBe(1000);
    expect(at!.bytesPerRun).toBeGreaterThan(0);
    // Every call of the table ran its samples (a call that failed would have stopped the bench).
    expect(Object.keys(at!.timings)).toEqual(
      expect.arrayContaining(["list runs, deep cursor page", "workspace run list (tRPC), deep cursor page", "usage, 90 days"]),
    );
    for (const t of Object.values(at!.timings)) expect(t.n).toBe(3);
    expect(Object.keys(at!.plans).length).toBeGreaterThan(0);
  }, 180_000);

  it("bench/prune.ts: pruning waves for both limits", async () => {
    const r = (await bench("bench/prune.ts", { BENCH_BACKEND: BACKEND, BENCH_WAVES: "2", BENCH_WAVE_RUNS: "400" })) as {
      backend: string;
      count: { waves: Array<{ written: number; runs: number }> };
      age: { waves: Array<{ written: number; runs: number }> };
    };
    expect(r.backend).toBe(BACKEND);
    for (const scenario of [r.count, r.age]) {
      expect(scenario.waves.map((w) => w.written)).toEqual([400, 800]);
      for (const w of scenario.waves) expect(w.runs).toBeGreaterThan(0);
    }
  }, 180_000);

  it.skipIf(BACKEND !== "sqlite")(
    "bench/runner.ts: a small throughput phase with every step recorded",
    async () => {
      const r = (await bench("bench/runner.ts", { BENCH_RUNS: "300", BENCH_ONLY_THROUGHPUT: "1" })) as {
        throughput: { runs: number; stepsRecorded: number; notSucceeded: number };
      };
      expect(r.throughput).toMatchObject({ runs: 300, stepsRecorded: 900, notSucceeded: 0 });
    },
    120_000,
  );

  it.skipIf(BACKEND !== "sqlite")(
    "bench/expressions.ts: both evaluation routes",
    async () => {
      const r = (await bench("bench/expressions.ts", { BENCH_N: "200" })) as { bench: string; results: Array<{ label: string; microsPerOp: number }> };
      expect(r.bench).toBe("expressions");
      expect(r.results.map((x) => x.label)).toEqual(
        expect.arrayContaining([expect.stringContaining("main thread, direct"), expect.stringContaining("worker round trip")]),
      );
      for (const x of r.results) expect(x.microsPerOp).toBeGreaterThan(0);
    },
    120_000,
  );
});
