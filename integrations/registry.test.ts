import { describe, expect, it } from "vitest";
import { buildCatalog, sensitivePaths, toJsonSchema } from "./core/catalog";
import { listIntegrations } from "./registry";

const KEY_RE = /^[a-z][a-zA-Z0-9]*\.[a-z][a-zA-Z0-9]*$/;

function hasPath(value: unknown, path: string[]): boolean {
  if (path.length === 0) return value !== undefined;
  if (Array.isArray(value)) return path[0] === "*" ? value.some((v) => hasPath(v, path.slice(1))) : false;
  if (!value || typeof value !== "object") return false;
  return hasPath((value as Record<string, unknown>)[path[0]!], path.slice(1));
}

describe("integration registry contract", () => {
  const integrations = listIntegrations();
  const units = integrations.flatMap((i) => [...i.components, ...i.triggers].map((u) => ({ i, u })));

  it("has unique, well-formed keys prefixed by their integration", () => {
    expect(units.length).toBeGreaterThan(0);
    const keys = units.map(({ u }) => u.key);
    expect(new Set(keys).size).toBe(keys.length);
    expect(new Set(integrations.map((i) => i.key)).size).toBe(integrations.length);
    for (const { i, u } of units) {
      expect(u.key, u.key).toMatch(KEY_RE);
      expect(u.key.startsWith(i.key + ".")).toBe(true);
      expect(u.title.length, u.key).toBeGreaterThan(0);
      expect(u.description.length, u.key).toBeGreaterThan(0);
    }
  });

  it.each(units.map(({ u }) => [u.key, u] as const))("%s: schemas convert, example parses, no sensitive field in it", (_key, u) => {
    const config = toJsonSchema(u.config);
    expect(config.type ?? config.anyOf ?? config).toBeTruthy();
    toJsonSchema(u.output, "output");
    const parsed = u.output.safeParse(u.example);
    expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
    for (const p of sensitivePaths(config)) expect(hasPath(u.example, p.split(".")), `${u.key} example carries ${p}`).toBe(false);
  });

  it("serializes the whole catalog as JSON (what the editor and REST receive)", () => {
    const text = JSON.stringify(buildCatalog());
    expect(JSON.parse(text).length).toBe(integrations.length);
    for (const i of integrations) {
      if (!i.connection) continue;
      const schema = toJsonSchema(i.connection.schema);
      expect(schema.type).toBe("object");
    }
  });
});
