/** Splits a connection config into plain settings and sensitive fields (encrypted at rest), and back. */
import type { z } from "zod";
import { sensitivePaths, toJsonSchema } from "@/integrations/core/catalog";

const cache = new WeakMap<z.ZodType, string[][]>();

export function secretPaths(schema: z.ZodType): string[][] {
  let p = cache.get(schema);
  if (!p) {
    p = sensitivePaths(toJsonSchema(schema))
      .filter((s) => s && !s.includes("*"))
      .map((s) => s.split("."));
    cache.set(schema, p);
  }
  return p;
}

function take(obj: Record<string, unknown>, path: string[]): unknown {
  let cur: unknown = obj;
  for (let i = 0; i < path.length - 1; i++) {
    cur = cur && typeof cur === "object" ? (cur as Record<string, unknown>)[path[i]!] : undefined;
  }
  if (!cur || typeof cur !== "object") return undefined;
  const last = path[path.length - 1]!;
  const v = (cur as Record<string, unknown>)[last];
  delete (cur as Record<string, unknown>)[last];
  return v;
}

function put(obj: Record<string, unknown>, path: string[], value: unknown): void {
  let cur = obj;
  for (let i = 0; i < path.length - 1; i++) {
    const k = path[i]!;
    if (!cur[k] || typeof cur[k] !== "object") cur[k] = {};
    cur = cur[k] as Record<string, unknown>;
  }
  cur[path[path.length - 1]!] = value;
}

export function splitSecrets(schema: z.ZodType, config: Record<string, unknown>): { plain: Record<string, unknown>; secrets: Record<string, unknown> } {
  const plain = structuredClone(config);
  const secrets: Record<string, unknown> = {};
  for (const p of secretPaths(schema)) {
    const v = take(plain, p);
    if (v !== undefined) put(secrets, p, v);
  }
  return { plain, secrets };
}

export function mergeSecrets(plain: Record<string, unknown>, secrets: Record<string, unknown>): Record<string, unknown> {
  const out = structuredClone(plain);
  const walk = (src: Record<string, unknown>, path: string[]) => {
    for (const [k, v] of Object.entries(src)) {
      if (v && typeof v === "object" && !Array.isArray(v)) walk(v as Record<string, unknown>, [...path, k]);
      else put(out, [...path, k], v);
    }
  };
  walk(secrets, []);
  return out;
}
