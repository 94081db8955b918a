/** BullMQ's lock and stalled-check spacing, against the takeover time docs/scale-out.md promises for a dead worker. */
import { describe, expect, it } from "vitest";
import { workerLockTimings } from "./bullmq";

describe("workerLockTimings", () => {
  // A dead worker's job is moved back by the second stalled check after its last lock renewal, once
  // the lock has expired; with several workers one check may be skipped: lock + 2 intervals at worst.
  const worstTakeoverMs = (leaseMs: number) => {
    const t = workerLockTimings(leaseMs);
    return t.lockDuration + 2 * t.stalledInterval;
  };

  for (const leaseMs of [3000, 6000, 30_000, 600_000]) {
    it(`brings a dead worker's runs back within 1.5 leases (lease ${leaseMs} ms)`, () => {
      // The old spacing (stalled check every lock) took up to three leases: 78 s measured at 30 s.
      expect(worstTakeoverMs(leaseMs)).toBeLessThanOrEqual(1.5 * leaseMs);
    });
  }

  it("keeps the lock at the lease and explicit settings as given", () => {
    expect(workerLockTimings(30_000)).toEqual({ lockDuration: 30_000, stalledInterval: 5000 });
    expect(workerLockTimings(30_000, { lockDurationMs: 4000, stalledIntervalMs: 700 })).toEqual({ lockDuration: 4000, stalledInterval: 700 });
    expect(workerLockTimings(3000).stalledInterval).toBe(500);
  });
});
