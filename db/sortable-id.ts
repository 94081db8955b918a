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

const CODES = Array.from(ALPHABET, (c) => c.charCodeAt(0));

/** 8 random base-36 characters, built in one call (a string concatenation per character cost more). */
function randomChars8(): string {
  if (offset + 8 > pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  const o = offset;
  offset += 8;
  const p = pool;
  return String.fromCharCode(
    CODES[p[o]! % 36]!,
    CODES[p[o + 1]! % 36]!,
    CODES[p[o + 2]! % 36]!,
    CODES[p[o + 3]! % 36]!,
    CODES[p[o + 4]! % 36]!,
    CODES[p[o + 5]! % 36]!,
    CODES[p[o + 6]! % 36]!,
    CODES[p[o + 7]! % 36]!,
  );
}

let lastMsText = "";

export function sortableId(prefix: string): string {
  const now = Date.now();
  if (now === lastMs) seq++;
  else {
    lastMs = now;
    lastMsText = now.toString(36).padStart(9, "0");
    seq = 0;
  }
  // 9 base-36 chars of milliseconds (good until year 5188) + 3 of a per-ms sequence + 8 random.
  return `${prefix}_${lastMsText}${(seq % 46656).toString(36).padStart(3, "0")}${randomChars8()}`;
}
