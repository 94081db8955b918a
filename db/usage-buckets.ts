/**
 * How usage counters are bucketed (db/schema/usage.ts): one row per workspace, hour and metric, the
 * bucket being the hour's ISO start (`2026-11-22T04:00:00.000Z`). Shared by the store, the services
 * and the in-process counters, so every writer names an hour the same way.
 */

// The last hour's bucket: counting happens several times per delivery and per step, nearly always in the same hour.
let lastBucket = { from: 0, to: 0, iso: "" };

export function hourBucket(at: Date): string {
  const t = at.getTime();
  if (t >= lastBucket.from && t < lastBucket.to) return lastBucket.iso;
  const d = new Date(t);
  d.setUTCMinutes(0, 0, 0);
  lastBucket = { from: d.getTime(), to: d.getTime() + 3_600_000, iso: d.toISOString() };
  return lastBucket.iso;
}
