/**
 * A step's memory (core.remember / core.recall; integrations/core/define.ts MemoryHandle), over
 * `store.memories`. Limits keep one automation from filling the database: keys up to 512 characters,
 * values up to 64 KiB of JSON, kept up to a year, and 100,000 live entries per workspace (a new key
 * past that fails the step; replacing a key always works). Test runs read and write their own scopes
 * (`test:<scope>`), kept at most a day, so testing never changes what production runs recall.
 */
import type { AppDeps } from "../../deps";
import type { MemoryHandle, MemoryScope, RememberedValue } from "@/integrations/core/define";

export const MEMORY_LIMITS = {
  keyChars: 512,
  valueBytes: 64 * 1024,
  keepMs: 366 * 24 * 3_600_000,
  testKeepMs: 24 * 3_600_000,
  entriesPerWorkspace: 100_000,
};

const refuse = (message: string) => Object.assign(new Error(message), { permanent: true });

function checkKey(key: string): void {
  if (typeof key !== "string" || key.length === 0) throw refuse("the memory key is empty");
  if (key.length > MEMORY_LIMITS.keyChars) throw refuse(`the memory key is ${key.length} characters long; the limit is ${MEMORY_LIMITS.keyChars}`);
}

export function openMemory(
  deps: Pick<AppDeps, "store" | "now">,
  at: { workspaceId: string; automationId: string; runId: string; nodeId: string; test: boolean },
  limits = MEMORY_LIMITS,
): MemoryHandle {
  const scopeOf = (scope: MemoryScope) => {
    const base = scope === "workspace" ? "workspace" : at.automationId;
    return at.test ? `test:${base}` : base;
  };
  return {
    async get(key, scope): Promise<RememberedValue | undefined> {
      checkKey(key);
      return deps.store.memories.get(at.workspaceId, scopeOf(scope), key, deps.now().toISOString());
    },
    async set(key, value, opts) {
      checkKey(key);
      if (value === undefined) throw refuse("there is no value to remember (the expression gave nothing)");
      const text = JSON.stringify(value);
      const bytes = Buffer.byteLength(text);
      if (bytes > limits.valueBytes) throw refuse(`the value to remember is ${bytes} bytes of JSON; the limit is ${limits.valueBytes}`);
      const keepMs = Math.min(opts.keepMs, at.test ? limits.testKeepMs : limits.keepMs);
      if (!(keepMs > 0)) throw refuse("keep the value for a positive duration");
      const now = deps.now();
      const expiresAt = new Date(now.getTime() + keepMs).toISOString();
      const r = await deps.store.memories.set({
        workspaceId: at.workspaceId,
        scope: scopeOf(opts.scope),
        key,
        value: JSON.parse(text) as unknown,
        storedBy: { runId: at.runId, nodeId: at.nodeId, automationId: at.automationId },
        storedAt: now.toISOString(),
        expiresAt,
        maxEntries: limits.entriesPerWorkspace,
      });
      if (!r.stored)
        throw refuse(
          `this workspace already remembers ${limits.entriesPerWorkspace} values (the limit); forget some, or keep values for less time`,
        );
      return { replaced: r.replaced, expiresAt };
    },
    async delete(key, scope) {
      checkKey(key);
      return deps.store.memories.delete(at.workspaceId, scopeOf(scope), key, deps.now().toISOString());
    },
  };
}
