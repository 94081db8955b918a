/**
 * Where the browser may be sent back to after sign-in or an OAuth consent: a path on this site,
 * never another origin. Pure (no Node imports): the sign-in form uses it in the browser too.
 *
 * `^\/(?!\/)` is not enough: the URL parser reads `/\evil.example`, `/\t/evil.example` and
 * `/\n/evil.example` as `//evil.example` (backslashes are slashes in http(s) URLs, tabs and
 * newlines are dropped), which is another origin. So the path is resolved against a placeholder
 * origin and kept only when it stays there; backslashes and control characters are refused first.
 */
const PLACEHOLDER = "http://return-path.invalid";

/** The path (with query and fragment) to go back to, or `fallback` when `raw` is not a path on this site. */
export function safeReturnPath(raw: unknown, fallback = "/"): string {
  if (typeof raw !== "string" || !raw.startsWith("/") || raw.length > 2000) return fallback;
  if (/[\\\u0000-\u001f\u007f]/.test(raw)) return fallback;
  let url: URL;
  try {
    url = new URL(raw, PLACEHOLDER);
  } catch {
    return fallback;
  }
  if (url.origin !== PLACEHOLDER || url.pathname.startsWith("//")) return fallback;
  return url.pathname + url.search + url.hash;
}

/** Whether `raw` is a path on this site (what the OAuth `returnTo` input accepts). */
export function isReturnPath(raw: string): boolean {
  return safeReturnPath(raw, "") === raw;
}
