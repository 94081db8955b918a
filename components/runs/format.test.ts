/** Run times read at a glance: how long ago, and the full moment with its time zone. */
import { describe, expect, it } from "vitest";
import { formatAgo, formatWhen } from "./format";

const now = Date.parse("2026-11-25T03:00:00Z");
const ago = (ms: number) => new Date(now - ms).toISOString();

describe("formatAgo", () => {
  it.each([
    [10_000, "just now"],
    [50_000, "1 min ago"],
    [25 * 60_000, "25 min ago"],
    [3 * 3_600_000 + 59 * 60_000, "3 h ago"],
    [30 * 3_600_000, "yesterday"],
    [3 * 86_400_000, "3 days ago"],
  ])("%d ms before → %s", (ms, text) => expect(formatAgo(ago(ms), now)).toBe(text));

  it("beyond a week is a date", () => expect(formatAgo(ago(10 * 86_400_000), now)).toBe(new Date(ago(10 * 86_400_000)).toLocaleDateString()));
});

describe("formatWhen", () => {
  it("names the time zone", () => {
    const prev = process.env.TZ;
    process.env.TZ = "Europe/Berlin";
    try {
      expect(formatWhen("2026-11-25T02:13:00Z")).toMatch(/3:13:00.*(GMT\+1|CET)/);
    } finally {
      process.env.TZ = prev;
    }
  });
});
