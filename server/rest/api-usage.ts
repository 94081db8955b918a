/** API call counting (usage metric `api.calls`), buffered in memory and flushed every few seconds. */
import type { Db } from "@/db/client";
import { transaction } from "@/db/client";
import { bumpUsage, hourBucket } from "../services/usage/bump-usage";

const pending = new Map<string, number>(); // `${workspaceId}\n${bucket}` → count
let timer: ReturnType<typeof setTimeout> | null = null;
let flushDb: Db | null = null;

export function countApiCall(db: Db, workspaceId: string, at: Date): void {
  const k = `${workspaceId}\n${hourBucket(at)}`;
  pending.set(k, (pending.get(k) ?? 0) + 1);
  flushDb = db;
  if (!timer) {
    timer = setTimeout(() => flushApiUsage(), 2000);
    timer.unref?.();
  }
}

export function flushApiUsage(): void {
  if (timer) clearTimeout(timer);
  timer = null;
  if (!flushDb || pending.size === 0) return;
  const entries = [...pending.entries()];
  pending.clear();
  try {
    transaction(flushDb, (tx) => {
      for (const [k, n] of entries) {
        const [ws, bucket] = k.split("\n") as [string, string];
        bumpUsage(tx, ws, "api.calls", n, new Date(bucket));
      }
    });
  } catch {
    // Counting must never fail a request; a workspace deleted meanwhile is simply skipped.
  }
}
