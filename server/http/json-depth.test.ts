import { describe, expect, it } from "vitest";
import { jsonDepth, MAX_JSON_DEPTH, nestsDeeperThan } from "./json-depth";

const nested = (depth: number, open = "[", close = "]") => open.repeat(depth) + close.repeat(depth);

describe("nestsDeeperThan", () => {
  it("accepts nesting up to the limit and refuses one level more, with arrays, objects or both", () => {
    expect(nestsDeeperThan(nested(MAX_JSON_DEPTH))).toBe(false);
    expect(nestsDeeperThan(nested(MAX_JSON_DEPTH + 1))).toBe(true);
    const objects = (d: number) => '{"a":'.repeat(d - 1) + "{}" + "}".repeat(d - 1);
    expect(nestsDeeperThan(objects(MAX_JSON_DEPTH))).toBe(false);
    expect(nestsDeeperThan(objects(MAX_JSON_DEPTH + 1))).toBe(true);
    const mixed = (d: number) => '[{"a":'.repeat(d / 2) + "1" + "}]".repeat(d / 2);
    expect(nestsDeeperThan(mixed(MAX_JSON_DEPTH))).toBe(false);
    expect(nestsDeeperThan(mixed(MAX_JSON_DEPTH + 2))).toBe(true);
  });

  it("counts brackets inside strings for the quick answer only: a flat body full of them is scanned and accepted", () => {
    const flat = JSON.stringify({ text: "{[".repeat(500), list: Array.from({ length: 200 }, (_, i) => ({ i })) });
    expect(jsonDepth(flat)).toBe(3);
    expect(nestsDeeperThan(flat)).toBe(false);
    expect(nestsDeeperThan(JSON.stringify({ text: "{[".repeat(500), deep: JSON.parse(nested(MAX_JSON_DEPTH)) }))).toBe(true);
  });

  it("agrees with the exact scan on a small limit", () => {
    for (const text of ["{}", "[[]]", '{"a":[{"b":[]}]}', '["{{{{", [[[]]]]', '[1,[2,[3]],{"x":{"y":{}}}]']) {
      for (const limit of [1, 2, 3, 4, 5]) expect(nestsDeeperThan(text, limit)).toBe(jsonDepth(text, limit) > limit);
    }
  });
});
