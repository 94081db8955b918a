/**
 * API call counting (usage metric `api.calls`), buffered in memory and flushed every few seconds.
 * The flush adds to the stored counters (never overwrites), so several web processes sharing one
 * database (scale-out mode) add up; a process that dies loses at most its last couple of seconds.
 */
import type { Store } from "@/db/store";
import { hourBucket } from "@/db/usage-buckets";

const pending = new Map<string, number>(); // `${workspaceId}\n${bucket}` → count
let timer: ReturnType<typeof setTimeout> | null = null;
let flushStore: Store | null = null;

export function countApiCall(store: Store, workspaceId: string, at: Date): void {
  const k = `${workspaceId}\n${hourBucket(at)}`;
  pending.set(k, (pending.get(k) ?? 0) + 1);
  flushStore = store;
  if (!timer) {
    timer = setTimeout(() => void flushApiUsage(), 2000);
    timer.unref?.();
  }
}

export async function flushApiUsage(): Promise<void> {
  if (timer) clearTimeout(timer);
  timer = null;
  if (!flushStore || pending.size === 0) return;
  const entries = [...pending.entries()];
  pending.clear();
  try {
    await flushStore.usage.add(
      entries.map(([k, n]) => {
        const [workspaceId, bucket] = k.split("\n") as [string, string];
        return { workspaceId, bucket, metric: "api.calls", value: n };
      }),
    );
  } catch {
    // Counting must never fail a request; a flush the database refuses is dropped.
  }
}
