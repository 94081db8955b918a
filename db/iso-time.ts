/**
 * `Date.prototype.toISOString` without its cost on hot paths. V8 formats every call in C++ (about
 * 1.7 µs measured on the bench machine), and a step wrote six of them (its attempt, row, commit and
 * envelope): about 12 % of the runner's CPU per run (docs/benchmarks.md, session 8). The text of the
 * last millisecond is kept, and the text up to the second's dot is formatted once per second.
 * Same output as `toISOString()` for every date, including years outside 0–9999; an invalid date
 * throws its RangeError.
 */
let lastMs = Number.NaN;
let lastText = "";
let secondMs = Number.NaN;
let secondText = "";

export function isoTime(at: Date | number): string {
  // A number is taken as `new Date(at)` would take it (whole milliseconds, NaN outside its range).
  const ms = typeof at !== "number" ? at.getTime() : Number.isInteger(at) && Math.abs(at) <= 8.64e15 ? at : new Date(at).getTime();
  if (ms === lastMs) return lastText;
  const second = Math.floor(ms / 1000) * 1000;
  if (second !== secondMs) {
    // Throws for an invalid date, as toISOString does; "…:SS.000Z" → "…:SS."
    secondText = new Date(second).toISOString().slice(0, -4);
    secondMs = second;
  }
  const m = ms - second;
  lastText = secondText + (m < 10 ? "00" : m < 100 ? "0" : "") + m + "Z";
  lastMs = ms;
  return lastText;
}
