import { describe, expect, it } from "vitest";
import { isoTime } from "./iso-time";

describe("isoTime", () => {
  it("writes what toISOString writes, for dates in any order and at any distance", () => {
    const base = Date.UTC(2026, 10, 25, 9, 59, 59, 990);
    const samples: number[] = [0, -1, -999, -1000, -1001, 1, 999, 1000, 1001, base, base + 9, base + 10, base + 99, base + 100];
    for (let i = 0; i < 20_000; i++) samples.push(base + Math.floor((Math.random() - 0.5) * 2 * 86_400_000 * (i % 3 ? 1 : 365 * 200)));
    // runs of the same and neighbouring milliseconds (the cached paths), and far years
    for (let i = 0; i < 3000; i++) samples.push(base + (i >> 1));
    samples.push(Date.UTC(-5, 0, 1), Date.UTC(10_000, 0, 1, 0, 0, 0, 7), 8.64e15, -8.64e15);
    for (const ms of samples) {
      expect(isoTime(new Date(ms))).toBe(new Date(ms).toISOString());
      expect(isoTime(ms)).toBe(new Date(ms).toISOString());
    }
  });

  it("takes numbers as new Date does and throws for an invalid date", () => {
    expect(isoTime(1.9)).toBe(new Date(1.9).toISOString());
    expect(isoTime(-1.9)).toBe(new Date(-1.9).toISOString());
    expect(() => isoTime(new Date(Number.NaN))).toThrow(RangeError);
    expect(() => isoTime(8.64e15 + 1)).toThrow(RangeError);
    expect(() => isoTime(Number.POSITIVE_INFINITY)).toThrow(RangeError);
  });
});
