/**
 * After a burst of allocation the process hands its memory back as soon as its event loop is idle,
 * not several seconds later, and never while the loop is busy. The waits allow 20 s: on a machine
 * loaded by other test processes an idle window (under 2 % busy) can take seconds to come.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { startMemoryReducer, type MemoryReducer } from "./memory-reducer";

let reducer: MemoryReducer | undefined;
afterEach(() => reducer?.stop());

const heapMB = () => process.memoryUsage().heapTotal / 2 ** 20;
/** Allocates about `mb` of short-lived objects, keeping a slice alive until `release` is called. */
function burst(mb: number): { release(): void } {
  let kept: unknown[][] = [];
  for (let i = 0; i < mb * 4; i++) {
    const chunk = Array.from({ length: 4096 }, (_, j) => ({ i, j, s: `x${j}` }));
    kept.push(chunk);
  }
  return { release: () => (kept = []) };
}
const busyFor = (ms: number) => {
  for (const until = Date.now() + ms; Date.now() < until; );
};

describe("memory reducer", () => {
  it("gives the heap back once the event loop is idle after a burst", async () => {
    reducer = startMemoryReducer({ windowMs: 50, minGapMs: 0, growthBytes: 16 * 2 ** 20 });
    const b = burst(96);
    const grown = heapMB();
    b.release();
    await vi.waitFor(() => expect(reducer!.reductions).toBe(1), { timeout: 20_000, interval: 20 });
    expect(heapMB()).toBeLessThan(grown - 48);
  });

  it("waits while the event loop is busy", async () => {
    reducer = startMemoryReducer({ windowMs: 50, minGapMs: 0, growthBytes: 16 * 2 ** 20 });
    const b = burst(96);
    b.release();
    // Ten windows of a loop that is never idle: busy 45 ms in every 50.
    for (let i = 0; i < 10; i++) {
      busyFor(45);
      await new Promise((r) => setTimeout(r, 5));
    }
    expect(reducer.reductions).toBe(0);
    await vi.waitFor(() => expect(reducer!.reductions).toBe(1), { timeout: 20_000, interval: 20 });
  });
});
