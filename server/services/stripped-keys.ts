/**
 * Keys a caller sent that a schema's parse dropped (zod objects strip unknown keys): what the caller
 * wrote was not understood, and nothing would read it, so each one is reported instead of ignored.
 * `sent` is the input as written, `parsed` the schema's output; lists are compared item by item.
 */
const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

export function strippedKeys(
  sent: unknown,
  parsed: unknown,
  path: string,
  out: Array<{ path: string; key: string }> = [],
): Array<{ path: string; key: string }> {
  if (isPlainObject(sent) && isPlainObject(parsed)) {
    for (const [k, v] of Object.entries(sent)) {
      if (!(k in parsed)) out.push({ path: `${path}.${k}`, key: k });
      else strippedKeys(v, parsed[k], `${path}.${k}`, out);
    }
  } else if (Array.isArray(sent) && Array.isArray(parsed)) sent.forEach((v, i) => strippedKeys(v, parsed[i], `${path}.${i}`, out));
  return out;
}
