/**
 * The nesting limit of JSON bodies (REST and webhooks). A body nested thousands deep parses, but
 * every later step that walks it recursively (re-stringifying, storing, expressions) overflows the
 * stack; the raw text is scanned first, in one pass and without recursion, so such a body is
 * answered 400 before it is parsed at all.
 */
export const MAX_JSON_DEPTH = 64;

/** The deepest nesting of arrays/objects in `raw` (strings are skipped), stopping once past `limit`. */
export function jsonDepth(raw: string, limit = MAX_JSON_DEPTH): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (inString) {
      if (c === 92)
        i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
      continue;
    }
    if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      depth++;
      if (depth > max) {
        max = depth;
        if (max > limit) return max;
      }
    } else if (c === 125 || c === 93) depth--;
  }
  return max;
}

/** How many of `ch` are in `raw`, counting no further than `cap` + 1 (indexOf runs natively). */
function countUpTo(raw: string, ch: string, cap: number): number {
  let n = 0;
  for (let i = raw.indexOf(ch); i >= 0 && n <= cap; i = raw.indexOf(ch, i + 1)) n++;
  return n;
}

/**
 * Whether `raw` nests arrays/objects deeper than `limit`. A text with at most `limit` opening brackets
 * in all (inside strings or not) cannot: nearly every body is answered by two native `indexOf` counts
 * instead of a scan of every character in JavaScript; the others are scanned (jsonDepth).
 */
export function nestsDeeperThan(raw: string, limit = MAX_JSON_DEPTH): boolean {
  const braces = countUpTo(raw, "{", limit);
  if (braces <= limit && braces + countUpTo(raw, "[", limit - braces) <= limit) return false;
  return jsonDepth(raw, limit) > limit;
}

export function tooDeepMessage(limit = MAX_JSON_DEPTH): string {
  return `The JSON body is nested more than ${limit} levels deep; flatten it.`;
}

/**
 * Whether JSON text carries a NUL character (`\u0000`). PostgreSQL text cannot hold one, so a request
 * carrying it is refused at the door (400) on both backends rather than failing at the insert.
 */
export function hasNulEscape(raw: string): boolean {
  return /\\u0000/i.test(raw) || raw.includes("\u0000");
}

export const NUL_MESSAGE = "The request contains a NUL character (\\u0000 or %00), which no field accepts.";
