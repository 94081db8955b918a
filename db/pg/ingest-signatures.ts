/**
 * Timestamped webhook signatures in the PostgreSQL ingest batch (db/pg/ingest.ts): the `sg` / `sn`
 * CTEs of the ingest statement insert each item's signature (`on conflict do nothing`) and write the
 * events and runs of the items whose signature row was inserted; the others are answered `replayed`.
 */
import type { IngestItem } from "../engine";

/**
 * The timestamped signatures of a batch (one per item that has one, `n` = the item's index in the
 * batch) and, per run, the index of its item's signature: an item whose signature the intake has
 * already stores nothing and is answered `replayed`.
 */
export interface Sigs {
  of: Array<number | null>;
  list: Array<{ n: number; i: string; s: string; x: number; g: number | null }>;
}

export function sigsOf(items: IngestItem[], guardOf: Array<number | null>): Sigs {
  const sigs: Sigs = { of: [], list: [] };
  items.forEach((item, n) => {
    const sg = item.signature;
    if (sg) sigs.list.push({ n, i: item.intakeId, s: sg.signature, x: sg.expiresAtMs, g: guardOf[n] ?? null });
    for (let i = 0; i < item.runs.length; i++) sigs.of.push(sg ? n : null);
  });
  return sigs;
}

/**
 * The next batch of `pending` (at most `max`): two deliveries with the same signature never share a
 * batch (the statement could not tell which one's row was inserted); the later one is put back for the
 * next batch, where the first one's row, committed or in flight, decides it.
 */
export function takeBatch<P extends { item: IngestItem }>(pending: P[], max: number): P[] {
  const batch = pending.splice(0, max);
  const seen = new Set<string>();
  const later: P[] = [];
  const kept = batch.filter((p) => {
    const sg = p.item.signature;
    if (!sg) return true;
    const key = `${p.item.intakeId} ${sg.signature}`;
    if (seen.has(key)) {
      later.push(p);
      return false;
    }
    seen.add(key);
    return true;
  });
  pending.unshift(...later);
  return kept;
}
