/** The outage log: once at the start, a reminder at its interval, once at the end; other errors left to the caller; one probe for all waiters. */
import { describe, expect, it } from "vitest";
import { createOutage } from "./outage";

const refused = Object.assign(new Error("connect ECONNREFUSED 10.0.0.5:5432"), { code: "ECONNREFUSED" });

describe("database outage log", () => {
  it("says an outage once, reminds at its interval, says its end once with its length", () => {
    let t = 1_000_000;
    const said: Array<[string, string, Record<string, unknown>]> = [];
    const o = createOutage({ target: "PostgreSQL at db:5432/conveyor (DATABASE_URL)", ping: async () => undefined, remindEveryMs: 60_000, now: () => t, sink: (l, m, f) => said.push([l, m, f]) });
    o.reached();
    expect(said).toEqual([]);
    for (let i = 0; i < 120; i++, t += 1000) expect(o.failed(i % 2 ? "maintenance" : "claim", refused)).toBe(true);
    expect(o.down).toBe(true);
    o.reached();
    expect(o.down).toBe(false);
    expect(said.map(([l, m]) => [l, m])).toEqual([
      ["error", "PostgreSQL at db:5432/conveyor (DATABASE_URL) is unreachable; background work waits and retries until it answers"],
      ["warn", "PostgreSQL at db:5432/conveyor (DATABASE_URL) still unreachable after 60 s"],
      ["warn", "PostgreSQL at db:5432/conveyor (DATABASE_URL) reachable again after 120 s"],
    ]);
    expect(said[0]![2]).toEqual({ source: "claim", error: "connect ECONNREFUSED 10.0.0.5:5432" });
    expect(said[2]![2]).toMatchObject({ downMs: 120_000, failures: 120, sources: ["claim", "maintenance"] });
    // A new outage is said again.
    o.failed("sweeper", refused);
    expect(said).toHaveLength(4);
  });

  it("leaves errors that are not the database being unreachable to the caller", () => {
    const said: unknown[] = [];
    const o = createOutage({ target: "x", ping: async () => undefined, sink: (...a) => said.push(a) });
    expect(o.failed("maintenance", new Error('relation "jobs" does not exist'))).toBe(false);
    expect(o.down).toBe(false);
    expect(said).toEqual([]);
  });

  it("back(): one probe for every waiter until the database answers; an aborted waiter gives up alone", async () => {
    let pings = 0;
    let up = false;
    const o = createOutage({ target: "x", probeMs: 10, ping: async () => void (pings++, up ? undefined : (() => { throw refused; })()) });
    const ctl = new AbortController();
    const waiters = [o.back(), o.back(), o.back()];
    const quitter = o.back(ctl.signal);
    ctl.abort(new Error("stopping"));
    await expect(quitter).rejects.toThrow("stopping");
    while (pings < 3) await new Promise((r) => setTimeout(r, 5));
    const before = pings;
    up = true;
    await Promise.all(waiters);
    // Three waiters, one probe loop: a ping per interval, not per waiter.
    expect(pings - before).toBeLessThanOrEqual(2);
    expect(o.down).toBe(false);
  });
});
