/** "1h30m", "45s", "500ms", "2d" → milliseconds (null when malformed). */
const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

export function parseDuration(value: string | number): number | null {
  if (typeof value === "number") return Number.isFinite(value) && value >= 0 ? value : null;
  const s = value.trim();
  if (!s || !/^(\d+(\.\d+)?(ms|s|m|h|d))+$/.test(s)) return null;
  let total = 0;
  for (const m of s.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d)/g)) total += Number(m[1]) * UNITS[m[2]!]!;
  return total;
}
