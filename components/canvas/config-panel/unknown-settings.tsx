"use client";
/**
 * Settings a node's config holds that its component does not have: a misspelt key sent through the
 * API, or one an older version left. Saving reports each as an error (`Unknown input "k" for <key>`),
 * and no form field shows them, so the panel names them here with a button that removes each one.
 */
import { X } from "lucide-react";
import { useCanvasStore } from "../canvas-store";
import type { Problem } from "../types";
import { configPath } from "./config-path";

const UNKNOWN = /^Unknown input "/;

const isContainer = (v: unknown): v is Record<string, unknown> | unknown[] => typeof v === "object" && v !== null;

/** The config without the value at a dotted path (`a.0.b`), or null when nothing is there. */
export function withoutPath(config: Record<string, unknown>, path: string): Record<string, unknown> | null {
  const [head, ...rest] = path.split(".");
  if (!head || !Object.prototype.hasOwnProperty.call(config, head)) return null;
  if (!rest.length) {
    const { [head]: _removed, ...kept } = config;
    return kept;
  }
  const inner = config[head];
  if (!isContainer(inner)) return null;
  if (Array.isArray(inner)) {
    const i = Number(rest[0]);
    const item = inner[i];
    if (!Number.isInteger(i) || rest.length < 2 || !isContainer(item) || Array.isArray(item)) return null;
    const next = withoutPath(item as Record<string, unknown>, rest.slice(1).join("."));
    return next ? { ...config, [head]: inner.map((v, j) => (j === i ? next : v)) } : null;
  }
  const next = withoutPath(inner, rest.join("."));
  return next ? { ...config, [head]: next } : null;
}

export function UnknownSettings({
  nodeId,
  config,
  problems,
  readOnly,
}: {
  nodeId: string;
  config: Record<string, unknown>;
  problems: Problem[];
  readOnly?: boolean;
}) {
  const setNodeConfig = useCanvasStore((s) => s.setNodeConfig);
  // Problems are from the last check: a key removed since is not listed again.
  const unknown = problems
    .filter((p) => UNKNOWN.test(p.message))
    .map((p) => ({ path: configPath(p.path), problem: p }))
    .filter((u): u is { path: string; problem: Problem } => !!u.path && withoutPath(config, u.path) !== null);
  if (!unknown.length) return null;
  return (
    <div role="alert" className="space-y-1.5 rounded-md border border-red-200 bg-red-50 p-2.5 text-xs text-danger" data-testid="unknown-settings">
      <p>This step has settings its component does not have. Nothing reads them; remove them to save it enabled.</p>
      <ul className="space-y-1">
        {unknown.map(({ path }) => (
          <li key={path} className="flex items-center justify-between gap-2">
            <code className="font-mono">{path}</code>
            <button
              type="button"
              className="btn btn-sm"
              disabled={readOnly}
              aria-label={`Remove setting ${path}`}
              onClick={() => {
                const next = withoutPath(config, path);
                if (next) setNodeConfig(nodeId, next);
              }}
            >
              <X size={12} aria-hidden /> Remove
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}
