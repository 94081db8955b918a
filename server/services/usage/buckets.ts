/** Usage buckets: counters are stored per hour (`2026-11-22T04:00:00.000Z`). */
import type { Store } from "@/db/store";

import { hourBucket } from "@/db/usage-buckets";

export { hourBucket };

/** Adds `by` to a workspace's counter (in the caller's transaction when `s` is bound to one). */
export function addUsage(s: Store, workspaceId: string, metric: string, by = 1, at: Date = new Date()): Promise<void> {
  return s.usage.add([{ workspaceId, bucket: hourBucket(at), metric, value: by }]);
}
