/**
 * Pasted or duplicated nodes keep their pinned output while it fits the document's limits (the same as
 * the server's at save: 1 MiB per node, 4 MiB per automation). What does not fit is pasted unpinned and
 * named in one message, instead of the paste going through and the next save being refused.
 */
import { jsonBytes, MAX_PINNED_BYTES, MAX_PINNED_TOTAL_BYTES } from "@/server/contracts/graph";
import type { PinnedData } from "./types";

type Pasted = { type: string; data: Record<string, unknown> };

const MIB = 1_048_576;
const mib = (n: number) => `${n % MIB === 0 ? n / MIB : (n / MIB).toFixed(2)} MiB`;
const pinnedOf = (data: Record<string, unknown>) => data.pinned as PinnedData | undefined;

/** The pasted nodes with the pins that fit (a copy where one is dropped), and a message naming the others. */
export function fitPinned<T extends Pasted>(existing: ReadonlyArray<{ data: Record<string, unknown> }>, pasted: T[]): { nodes: T[]; message: string | null } {
  let total = 0;
  for (const n of existing) {
    const p = pinnedOf(n.data);
    if (p) total += jsonBytes(p.output);
  }
  const tooLarge: string[] = [];
  const noRoom: string[] = [];
  const nodes = pasted.map((n) => {
    const p = pinnedOf(n.data);
    if (!p) return n;
    const size = jsonBytes(p.output);
    const name = String(n.data.name ?? "a node");
    if (size > MAX_PINNED_BYTES) tooLarge.push(`${name} (${mib(size)})`);
    else if (total + size > MAX_PINNED_TOTAL_BYTES) noRoom.push(name);
    else {
      total += size;
      return n;
    }
    const { pinned: _dropped, ...data } = n.data;
    return { ...n, data };
  });
  if (!tooLarge.length && !noRoom.length) return { nodes, message: null };
  const parts: string[] = [];
  if (tooLarge.length) parts.push(`${tooLarge.join(", ")}: above the ${mib(MAX_PINNED_BYTES)} a node may pin`);
  if (noRoom.length)
    parts.push(`${noRoom.join(", ")}: this automation's pinned data would go above its ${mib(MAX_PINNED_TOTAL_BYTES)} limit (unpin other nodes to make room)`);
  return { nodes, message: `Pasted without pinned data — ${parts.join("; ")}.` };
}
