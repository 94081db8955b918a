import { describe, expect, it } from "vitest";
import { formatSeconds, parseDuration, parseQueryTime, parseStep } from "./duration";

describe("durations and query times", () => {
  it("parses Prometheus durations", () => {
    expect(parseDuration("1h")).toBe(3_600_000);
    expect(parseDuration("30m")).toBe(1_800_000);
    expect(parseDuration("2h30m")).toBe(9_000_000);
    expect(parseDuration("1d12h")).toBe(129_600_000);
    expect(parseDuration("1w")).toBe(604_800_000);
    expect(parseDuration("500ms")).toBe(500);
    for (const bad of ["", "0s", "1", "h", "30m2h", "1.5h", "1 h", "-1h", "1hh"]) expect(parseDuration(bad)).toBeNull();
  });

  it("parses steps as durations or seconds", () => {
    expect(parseStep("15s")).toBe(15);
    expect(parseStep("1m")).toBe(60);
    expect(parseStep("0.5")).toBe(0.5);
    expect(parseStep("0")).toBeNull();
    expect(parseStep("fast")).toBeNull();
  });

  it("parses RFC 3339, Unix seconds and now-relative times", () => {
    const now = new Date("2026-11-22T05:00:00Z");
    expect(parseQueryTime("2026-11-22T04:00:00Z", now)).toBe(Date.parse("2026-11-22T04:00:00Z") / 1000);
    expect(parseQueryTime("2026-11-22T04:00:00.5+01:00", now)).toBe(Date.parse("2026-11-22T03:00:00.5Z") / 1000);
    expect(parseQueryTime("1795363915.581", now)).toBe(1795363915.581);
    expect(parseQueryTime(1795363915, now)).toBe(1795363915);
    expect(parseQueryTime("now", now)).toBe(now.getTime() / 1000);
    expect(parseQueryTime("now-1h", now)).toBe(now.getTime() / 1000 - 3600);
    expect(parseQueryTime("now+30m", now)).toBe(now.getTime() / 1000 + 1800);
    for (const bad of ["yesterday", "2026-11-22", "now-soon", "2026-13-40T00:00:00Z"]) expect(parseQueryTime(bad, now)).toBeNull();
  });

  it("formats seconds compactly", () => {
    expect(formatSeconds(9000)).toBe("2h30m");
    expect(formatSeconds(0.2)).toBe("1s");
  });
});
