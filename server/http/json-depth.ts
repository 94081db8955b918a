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
