/**
 * The SQLite background thread answers long reads (a /metrics count of every run) on its own
 * connection: the event loop and the connection stay free meanwhile, and the answer is what was
 * committed.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openStorage, type OpenedStorage } from "../open";

let opened: OpenedStorage | undefined;
let dir: string | undefined;
afterEach(async () => {
  await opened?.store.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  opened = dir = undefined;
});

async function open(checkpoint: boolean): Promise<OpenedStorage> {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "conveyor-bgthread-"));
  opened = await openStorage(path.join(dir, "t.db"), { checkpoint });
  return opened;
}

/** Largest gap between ticks of a 5 ms timer while `work` runs. */
async function longestStall(work: () => Promise<unknown>): Promise<number> {
  let last = performance.now();
  let worst = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - last);
    last = now;
  }, 5);
  try {
    await work();
    return Math.max(worst, performance.now() - last);
  } finally {
    clearInterval(timer);
  }
}

// A read that takes a few hundred ms wherever it runs (counts three million generated rows).
const SLOW = "with recursive n(i) as (select 1 union all select i + 1 from n where i < 3000000) select count(*) as n from n";

describe("SQLite background thread", () => {
  it("runs a long read without stalling the event loop or holding the connection", async () => {
    const { backend, sqlite } = await open(true);
    expect(backend.scan).toBeDefined();
    // The same read on the main connection stalls the loop for its whole duration.
    const mainStall = await longestStall(async () => sqlite!.$client.prepare(SLOW).get());
    // The scan on the background thread, with store calls on the connection meanwhile. On a loaded
    // machine another process can pause this one for a while whatever it runs, so the scan gets up to
    // three tries to show a loop that keeps ticking (a scan on the main thread stalls every try).
    let storeCalls = 0;
    const scanWhileBusy = () =>
      longestStall(async () => {
        storeCalls = 0;
        const scanning = backend.scan!<{ n: number }>(SLOW);
        // Meanwhile the connection serves store calls.
        const busy = (async () => {
          for (let done = false; !done; ) {
            await opened!.store.ping();
            storeCalls++;
            done = await Promise.race([scanning.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 1))]);
          }
        })();
        expect((await scanning)[0]!.n).toBe(3_000_000);
        await busy;
      });
    let stall = await scanWhileBusy();
    for (let tries = 1; tries < 3 && stall >= mainStall / 3; tries++) stall = Math.min(stall, await scanWhileBusy());
    expect(mainStall).toBeGreaterThan(100);
    expect(stall).toBeLessThan(mainStall / 3);
    expect(storeCalls).toBeGreaterThan(10);
  });

  it("counts runs by status for /metrics from what is committed", async () => {
    const { store, sqlite } = await open(true);
    const insert = sqlite!.$client.prepare(
      "insert into runs (id, workspace_id, automation_id, version, status, trigger_node_id, event_id, created_at, updated_at) values (?, 'ws_1', 'aut_1', 1, ?, 't', 'evt', '2026-11-25T00:00:00Z', '2026-11-25T00:00:00Z')",
    );
    for (let i = 0; i < 5; i++) insert.run(`run_s${i}`, "succeeded");
    insert.run("run_f", "failed");
    insert.run("run_q", "queued");
    const byStatus = async () => Object.fromEntries((await store.metrics.runsByStatus()).map((r) => [r.status, r.n]));
    expect(await byStatus()).toEqual({ succeeded: 5, failed: 1, queued: 1 });
    sqlite!.$client.prepare("update runs set status = 'succeeded' where id = 'run_q'").run();
    expect(await byStatus()).toEqual({ succeeded: 6, failed: 1 });
  });

  it("reports a failed read as an error, and stops cleanly with the store", async () => {
    const { backend } = await open(true);
    await expect(backend.scan!("select * from no_such_table")).rejects.toThrow(/no such table/);
    await opened!.store.close();
    opened = undefined;
    await expect(backend.scan!("select 1")).rejects.toThrow(/background thread stopped/);
  });

  it("without the thread (tests, :memory:) the count runs on the connection", async () => {
    const { backend, store } = await open(false);
    expect(backend.scan).toBeUndefined();
    expect(await store.metrics.runsByStatus()).toEqual([]);
  });
});
