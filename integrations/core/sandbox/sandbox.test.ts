/**
 * The expression sandbox: which expressions may run on the calling thread, and the worker pool's
 * hard limits (wall time, heap, crash) with the calling process staying responsive throughout.
 */
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import jsonata from "jsonata";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { analyse, reachWithin } from "./cheap";
import { ExpressionFailed, ExpressionPool, ExpressionStopped } from "./pool";

const cheap = (src: string) => analyse(jsonata(src).ast(), src);

describe("fast-path analysis", () => {
  it("keeps paths, literals, comparisons and linear functions on the calling thread", () => {
    for (const src of [
      "$trigger.data.labels.alertname",
      "$trigger.data.body.status = 'firing'",
      "$count($trigger.data.body.alerts) > 0",
      "$steps.s1.data.passed and $steps.s2.data.passed",
      "$trigger.data.alerts[0].labels",
      "$trigger.data.alerts[status = 'firing'].labels.alertname",
      "$steps.`my node`.data.id",
      "'n=' & $string($trigger.data.n + 1)",
      "{ 'name': $trigger.data.labels.alertname, 'ids': [$steps.a.data.id] }",
      "$exists($trigger.data.x) ? $uppercase($trigger.data.x) : 'none'",
    ]) {
      expect(cheap(src).cheap, src).toBe(true);
    }
  });

  it("sends everything that can loop, backtrack or grow to the pool", () => {
    for (const src of [
      "$match($pad('', 50000, 'a') & '!', /^(a+)+$/)",
      "$pad('', 100000000, 'a')",
      "[1..10000000]",
      "($f := function($x){ $f($x + 1) }; $f(1))",
      "$trigger.data.alerts.($trigger.data.alerts)",
      "$trigger.data.alerts[$count($trigger.data.alerts) > 1]",
      "$join($trigger.data.list, $trigger.data.sep)",
      "$trigger.**.x",
      "$trigger.data.*",
      "$eval('1')",
      "$map($trigger.data.list, function($v){ $v })",
      "$trigger.data.list^($)",
      "$trigger.data.list{ $: 1 }",
      "$count(" + "$trigger.a + ".repeat(40) + "1)",
    ]) {
      expect(cheap(src).cheap, src).toBe(false);
    }
  });

  it("reports which $steps entries an expression reads, or null when dynamic", () => {
    expect([...cheap("$steps.a.data.x & $steps.`b c`.data.y").steps!].sort()).toEqual(["a", "b c"]);
    expect(cheap("$trigger.data.x").steps!.size).toBe(0);
    expect(cheap("$lookup($steps, 'a')").steps).toBeNull();
    expect(cheap("$keys($steps)").steps).toBeNull();
    expect(cheap("$steps['a'].data").steps).toBeNull(); // a filter in JSONata, not a lookup
  });

  it("bounds the data a fast-path expression reaches, not only its syntax", () => {
    const big = { data: { issue: { key: "OPS-1", fields: { history: Array.from({ length: 5000 }, (_, i) => ({ i })) } }, alerts: [{ a: 1 }, { a: 2 }] } };
    const within = (src: string) => reachWithin(cheap(src).accesses, { trigger: big, steps: {} }, 1000);
    expect(within("$trigger.data.issue.key")).toBe(true); // one value, however large the payload
    expect(within("$count($trigger.data.alerts) > 1")).toBe(true);
    expect(within("$count($trigger.data.issue.fields.history)")).toBe(false);
    expect(within("$trigger.data.issue.fields.history[0].i")).toBe(false); // the filter runs over the whole array
    expect(within("$string($trigger)")).toBe(false);
  });
});

const bindings = JSON.stringify({ trigger: { data: { n: 3 } }, steps: {} });

describe("expression worker pool", () => {
  let pool: ExpressionPool;
  let server: http.Server;
  let url = "";
  beforeAll(async () => {
    process.env.CONVEYOR_SANDBOX_TEST_SECRET = "must-not-leak";
    pool = new ExpressionPool({ workers: 2, timeoutMs: 500, maxHeapMb: 48, idleMs: 10_000 });
    server = http.createServer((_req, res) => res.end("ok"));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/health`;
  });
  afterAll(async () => {
    await pool.close();
    server.close();
  });

  /** Runs `work` while polling an HTTP endpoint of this process; returns the answers received meanwhile. */
  async function whileServing<T>(work: Promise<T>): Promise<{ settled: PromiseSettledResult<T>; answers: number }> {
    let done = false;
    let answers = 0;
    const poll = (async () => {
      while (!done) {
        const res = await fetch(url);
        if ((await res.text()) === "ok") answers++;
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    const [settled] = await Promise.allSettled([work]);
    done = true;
    await poll;
    return { settled: settled!, answers };
  }

  it("kills a catastrophically backtracking regex at the wall time while this process keeps answering HTTP", async () => {
    const { settled, answers } = await whileServing(pool.run("$match($pad('', 50000, 'a') & '!', /^(a+)+$/)", bindings));
    expect(settled.status).toBe("rejected");
    const e = (settled as PromiseRejectedResult).reason;
    expect(e).toBeInstanceOf(ExpressionStopped);
    expect(e.reason).toBe("time");
    expect(e.message).toBe("it ran longer than 500 ms");
    expect(answers).toBeGreaterThan(3);
    expect(await pool.run("$trigger.data.n * 2", bindings)).toBe("6"); // a fresh worker took its place
  });

  it("stops an expression that builds a huge value at the heap limit; the value never reaches this process", async () => {
    const before = process.memoryUsage().rss;
    const roomy = new ExpressionPool({ workers: 1, timeoutMs: 10_000, maxHeapMb: 48, idleMs: 10_000 }); // time must not preempt the heap limit
    onTestFinished(() => roomy.close());
    for (const src of ["$count([1..10000000].($ * 2))", "$length($pad('', 300000000, 'a'))", "$reduce([1..10000000], function($a, $b){ $a & 'x' }, '')"]) {
      const { settled, answers } = await whileServing(roomy.run(src, bindings));
      const e = (settled as PromiseRejectedResult).reason;
      expect(e, src).toBeInstanceOf(ExpressionStopped);
      expect(e.reason, src).toBe("heap");
      expect(e.message).toBe("it used more than 48 MB of memory");
      expect(answers).toBeGreaterThan(0);
    }
    // Each of those built hundreds of MB in a worker; this process grew by far less than one of them.
    expect(process.memoryUsage().rss - before).toBeLessThan(64 * 2 ** 20);
  });

  it("ends runaway loops and recursion with JSONata's own timer or the hard kill", async () => {
    for (const src of ["($f := function($x){ $x > 0 ? $f($x - 1) + $f($x - 1) : 1 }; $f(40))", "($f := function($x){ $f($x + 1) }; $f(1))"]) {
      const e = await pool.run(src, bindings).catch((x) => x);
      expect(e instanceof ExpressionFailed || e instanceof ExpressionStopped, src).toBe(true);
      expect(e.message).toMatch(/ran longer than 500 ms|nested too deeply/);
    }
  });

  it("counts the wall time from the start of the evaluation: expressions queued behind slow ones are not blamed", async () => {
    const one = new ExpressionPool({ workers: 1, timeoutMs: 400, maxHeapMb: 48, idleMs: 10_000 });
    try {
      const slow = ["$match($pad('', 40000, 'a') & '!', /^(a+)+$/)", "$match($pad('', 40000, 'a') & '!', /^(a+)+$/)"].map((s) =>
        one.run(s, bindings).catch((e) => e),
      );
      const innocent = one.run("$trigger.data.n + 1", bindings);
      expect(await innocent).toBe("4");
      for (const e of await Promise.all(slow)) expect(e).toBeInstanceOf(ExpressionStopped);
      expect(one.stats().stopped.time).toBe(2);
    } finally {
      await one.close();
    }
  });

  it("drops a queued evaluation and kills a running one when aborted", async () => {
    const one = new ExpressionPool({ workers: 1, timeoutMs: 5000, maxHeapMb: 48, idleMs: 10_000 });
    try {
      const running = new AbortController();
      const queued = new AbortController();
      const a = one.run("$match($pad('', 50000, 'a') & '!', /^(a+)+$/)", bindings, running.signal).catch((e) => e);
      const b = one.run("1", bindings, queued.signal).catch((e) => e);
      queued.abort(new Error("not needed"));
      expect((await b).message).toBe("not needed");
      await new Promise((r) => setTimeout(r, 200));
      running.abort(new Error("cancelled"));
      expect((await a).message).toBe("cancelled");
      expect(await one.run("2", bindings)).toBe("2");
    } finally {
      await one.close();
    }
  });

  it("runs workers without the parent's environment, under Node's permission model and a kernel CPU-time limit", async () => {
    await pool.run("1", bindings);
    const pid = pool.stats().pids.find(Boolean)!;
    expect(pid).toBeGreaterThan(0);
    if (process.platform === "linux") {
      const environ = fs.readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").filter(Boolean);
      expect(environ.join("\n")).not.toContain("must-not-leak");
      expect(environ.filter((v) => !/^(NODE_CHANNEL_\w+|PWD)=/.test(v))).toEqual([]); // only what node's IPC and the shell add
      expect(fs.readFileSync(`/proc/${pid}/limits`, "utf8")).toMatch(/Max cpu time\s+120\s+120\s+seconds/);
      expect(fs.readFileSync(`/proc/${pid}/cmdline`, "utf8")).toContain("--permission");
    }
  });
});
