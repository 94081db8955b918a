/**
 * Time-ordered ids for hot tables (events, runs, steps/jobs): `<prefix>_<10 chars time><10 chars random>`.
 * Sequential keys append to the B-tree instead of splitting pages all over it (a large win at
 * thousands of inserts per second), and randomness comes from a pooled buffer (one syscall per 4 KiB).
 */
import { randomFillSync } from "node:crypto";

const ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz";
const pool = Buffer.alloc(4096);
let offset = pool.length;
let lastMs = 0;
let seq = 0;

function randomChars(n: number): string {
  if (offset + n > pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  let out = "";
  for (let i = 0; i < n; i++) out += ALPHABET[pool[offset++]! % 36];
  return out;
}

export function sortableId(prefix: string): string {
  const now = Date.now();
  if (now === lastMs) seq++;
  else {
    lastMs = now;
    seq = 0;
  }
  // 9 base-36 chars of milliseconds (good until year 5188) + 3 of a per-ms sequence + 8 random.
  return `${prefix}_${now.toString(36).padStart(9, "0")}${(seq % 46656).toString(36).padStart(3, "0")}${randomChars(8)}`;
}
