/** Usage counters are stored per hour (db/usage-buckets.ts). */
import type { Store } from "@/db/store";

/** Adds `by` to a workspace's counter (in the caller's transaction when `s` is bound to one). */
export function addUsage(s: Store, workspaceId: string, metric: string, by = 1, at: Date = new Date()): Promise<void> {
  return s.usage.bump(workspaceId, metric, by, at);
}
