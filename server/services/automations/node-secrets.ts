/**
 * Secrets inside node config (fields marked `sensitive`, e.g. core.webhook's bearer/HMAC secret)
 * are encrypted at rest like connection secrets, and never returned:
 * - on save, a plain value is sealed as `secret:<AES-GCM>`; the placeholder sent back by a client
 *   that only saw the masked value keeps the stored secret of the same node;
 * - every response (automation, versions, export) shows the placeholder instead;
 * - the runner and the webhook ingress open sealed values just before use, at those fields only: a
 *   `secret:` string elsewhere (a ciphertext pasted into a header) stays as written, or the service
 *   would decrypt for anyone any ciphertext of its key read from a database backup.
 */
import { findUnit } from "@/integrations/registry";
import { sensitivePaths, toJsonSchema } from "@/integrations/core/catalog";
import type { SecretBox } from "../../crypto/secret-box";
import { AppError } from "../../errors";
import type { Graph } from "../../contracts/graph";

export const SECRET_PLACEHOLDER = "********";
const PREFIX = "secret:";
const pathCache = new Map<string, string[][]>();

/** Config paths (split) of a unit's secret fields. */
export function sensitiveKeyPaths(key: string): string[][] {
  let paths = pathCache.get(key);
  if (!paths) {
    const unit = findUnit(key)?.unit;
    // Array paths (`*`) are left to masking only; node secrets are plain object fields.
    paths = unit
      ? sensitivePaths(toJsonSchema(unit.config))
          .filter((p) => p && !p.includes("*"))
          .map((p) => p.split("."))
      : [];
    pathCache.set(key, paths);
  }
  return paths;
}

function getAt(obj: unknown, path: string[]): unknown {
  return path.reduce<unknown>((o, k) => (o && typeof o === "object" ? (o as Record<string, unknown>)[k] : undefined), obj);
}

function setAt(obj: Record<string, unknown>, path: string[], value: unknown): Record<string, unknown> {
  const [head, ...rest] = path as [string, ...string[]];
  if (!rest.length) return { ...obj, [head]: value };
  const child = obj[head];
  return { ...obj, [head]: setAt(child && typeof child === "object" ? (child as Record<string, unknown>) : {}, rest, value) };
}

export const isSealed = (v: unknown): v is string => typeof v === "string" && v.startsWith(PREFIX);

/** Encrypts plain sensitive values; resolves placeholders against the previous graph's node of the same id. */
export function sealGraphSecrets(box: SecretBox, graph: Graph, previous?: Graph | null): Graph {
  const problems: Array<{ path: string; nodeId: string; message: string }> = [];
  const nodes = graph.nodes.map((node, i) => {
    let config = node.config as Record<string, unknown>;
    for (const path of sensitiveKeyPaths(node.key)) {
      const value = getAt(config, path);
      if (typeof value !== "string" || !value || isSealed(value)) continue;
      if (value === SECRET_PLACEHOLDER) {
        const before = previous?.nodes.find((n) => n.id === node.id && n.key === node.key);
        const kept = before ? getAt(before.config, path) : undefined;
        if (isSealed(kept)) config = setAt(config, path, kept);
        else
          problems.push({
            path: `graph.nodes.${i}.config.${path.join(".")}`,
            nodeId: node.id,
            message: "Enter the secret again (it is not stored for this node)",
          });
        continue;
      }
      config = setAt(config, path, PREFIX + box.encrypt(value));
    }
    return config === node.config ? node : { ...node, config };
  });
  if (problems.length) throw new AppError("validation_failed", problems[0]!.message, problems);
  return { ...graph, nodes };
}

/** Replaces sealed values with the placeholder (responses never carry secrets, not even encrypted). */
export function maskGraphSecrets(graph: Graph): Graph {
  let changed = false;
  const nodes = graph.nodes.map((node) => {
    let config = node.config as Record<string, unknown>;
    for (const path of sensitiveKeyPaths(node.key)) {
      if (isSealed(getAt(config, path))) config = setAt(config, path, SECRET_PLACEHOLDER);
    }
    if (config !== node.config) changed = true;
    return config === node.config ? node : { ...node, config };
  });
  return changed ? { ...graph, nodes } : graph;
}

/** Decrypts the sealed values at the sensitive fields of a node (runner and ingress, just before use). */
export function openNodeSecrets<T extends Record<string, unknown>>(box: SecretBox, key: string, config: T): T {
  let out = config as Record<string, unknown>;
  for (const path of sensitiveKeyPaths(key)) {
    const value = getAt(out, path);
    if (isSealed(value)) out = setAt(out, path, box.decrypt(value.slice(PREFIX.length)));
  }
  return out as T;
}

/** Decrypts sealed values anywhere in a value (a sealed string taken from a sensitive field: as-code export). */
export function openConfigSecrets<T>(box: SecretBox, config: T): T {
  if (isSealed(config)) return box.decrypt(config.slice(PREFIX.length)) as T;
  if (Array.isArray(config)) return config.map((v) => openConfigSecrets(box, v)) as T;
  if (config && typeof config === "object") {
    let out: Record<string, unknown> | undefined;
    for (const [k, v] of Object.entries(config)) {
      const opened = openConfigSecrets(box, v);
      if (opened !== v) (out ??= { ...(config as Record<string, unknown>) })[k] = opened;
    }
    return (out ?? config) as T;
  }
  return config;
}
