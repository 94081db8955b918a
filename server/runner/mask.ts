/** Masks fields marked `sensitive` (UI meta) in resolved inputs before they are recorded. */
import { sensitivePaths, toJsonSchema } from "@/integrations/core/catalog";
import type { AnyComponent } from "@/integrations/core/define";

const cache = new Map<string, string[][]>();
export const MASK = "••••••";

function pathsFor(unit: AnyComponent): string[][] {
  let p = cache.get(unit.key);
  if (!p) {
    p = sensitivePaths(toJsonSchema(unit.config))
      .filter(Boolean)
      .map((s) => s.split("."));
    cache.set(unit.key, p);
  }
  return p;
}

function maskAt(value: unknown, path: string[]): unknown {
  if (value === null || typeof value !== "object") return value;
  const [head, ...rest] = path;
  if (head === "*" && Array.isArray(value)) return value.map((v) => (rest.length ? maskAt(v, rest) : MASK));
  const obj = value as Record<string, unknown>;
  if (!(head! in obj)) return value;
  return { ...obj, [head!]: rest.length ? maskAt(obj[head!], rest) : MASK };
}

export function maskInputs(unit: AnyComponent, input: unknown): unknown {
  let out = input;
  for (const p of pathsFor(unit)) out = maskAt(out, p);
  return out;
}
