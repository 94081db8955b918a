/**
 * CSRF defence for the session-authenticated door (tRPC), on top of SameSite=Lax cookies: a
 * state-changing browser request must come from the configured public URL's origin, or from the
 * origin the browser itself connected to (the Host header, which a page cannot forge).
 * X-Forwarded-Host is never believed: any client can send it.
 */
export function isSameOrigin(req: Request, publicUrl: string): boolean {
  if (req.method === "GET" || req.method === "HEAD") return true;
  const origin = req.headers.get("origin");
  if (!origin) return true; // non-browser clients do not send Origin; cookies are SameSite=Lax anyway
  let from: URL;
  try {
    from = new URL(origin);
  } catch {
    return false;
  }
  if (from.origin === new URL(publicUrl).origin) return true;
  const host = req.headers.get("host");
  return !!host && from.host === host && new URL(req.url).protocol === from.protocol;
}
