/**
 * Form-only prefills from the real catalog: a new node starts with sensible values for fields the spec
 * makes required (so they stay required for REST users), and those values satisfy the unit's schema.
 */
import { describe, expect, it } from "vitest";
import { buildCatalog } from "@/integrations/core/catalog";
import { findUnit } from "@/integrations/registry";
import type { JsonSchema } from "../types";
import { initialValue, placeholderOf, prefillConfig } from "./schema-utils";

const configOf = (key: string) => {
  for (const i of buildCatalog()) for (const u of [...i.triggers, ...i.components]) if (u.key === key) return u.config as JsonSchema;
  throw new Error(`no ${key} in the catalog`);
};

describe("prefilled configs of new nodes", () => {
  it("On Alert starts with Statuses = firing, Query Range with the last hour at 1m; both then pass their schemas", () => {
    expect(prefillConfig(configOf("metrics.onAlert"))).toEqual({ statuses: ["firing"] });
    expect(prefillConfig(configOf("metrics.queryRange"))).toEqual({ start: "now-1h", end: "now", step: "1m" });
    expect(findUnit("metrics.onAlert")!.unit.config.safeParse(prefillConfig(configOf("metrics.onAlert"))).success).toBe(true);
    expect(findUnit("metrics.queryRange")!.unit.config.safeParse({ query: "up", ...prefillConfig(configOf("metrics.queryRange")) }).success).toBe(true);
    // Without the prefill (e.g. a REST document) the same fields are missing.
    expect(findUnit("metrics.onAlert")!.unit.config.safeParse({}).success).toBe(false);
  });

  it("units without prefills start empty (schema defaults are not copied in)", () => {
    expect(prefillConfig(configOf("metrics.createSilence"))).toEqual({});
    expect(prefillConfig(configOf("tracker.createHeartbeat"))).toEqual({});
  });

  it("enabling Update Alert's Priority section starts unset (null), which the schema accepts", () => {
    const priority = (configOf("tracker.updateAlert").properties as Record<string, JsonSchema>).priority!;
    expect(initialValue({ ...priority, togglable: false })).toBeNull();
    expect(findUnit("tracker.updateAlert")!.unit.config.safeParse({ alert: "a1", priority: null }).success).toBe(true);
  });
});

describe("placeholderOf", () => {
  it("shows a schema's example as an example, a format hint and a default as they are", () => {
    expect(placeholderOf({ type: "string", placeholder: "1h" })).toBe("e.g. 1h");
    expect(placeholderOf({ type: "string", placeholder: "conveyor" })).toBe("e.g. conveyor");
    expect(placeholderOf({ type: "string", placeholder: "e.g. OPS-123" })).toBe("e.g. OPS-123");
    expect(placeholderOf({ type: "string", placeholder: "YYYY-MM-DD" })).toBe("YYYY-MM-DD");
    expect(placeholderOf({ type: "integer", default: 30 })).toBe("30");
    expect(placeholderOf({ type: "object", default: {} })).toBeUndefined();
  });
});
