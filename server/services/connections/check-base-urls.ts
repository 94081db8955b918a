/**
 * Connection base URLs are checked against the egress policy when a connection is saved, so a
 * refused destination is a 422 on its field instead of a failure on first use. (The HTTP client
 * checks every request again: a name may resolve differently later.) Names that do not resolve
 * from here are left to verify.
 */
import { EgressRefusedError, getEgress } from "@/integrations/core/egress";
import { AppError, type FieldProblem } from "../../errors";

function urlFields(obj: Record<string, unknown>, prefix: string): Array<{ path: string; url: URL }> {
  const out: Array<{ path: string; url: URL }> = [];
  for (const [k, v] of Object.entries(obj)) {
    if (typeof v === "string" && /^https?:\/\//i.test(v)) {
      try {
        out.push({ path: `${prefix}${k}`, url: new URL(v) });
      } catch {
        /* the integration's schema reports malformed URLs */
      }
    } else if (v && typeof v === "object" && !Array.isArray(v)) out.push(...urlFields(v as Record<string, unknown>, `${prefix}${k}.`));
  }
  return out;
}

export async function assertBaseUrlsAllowed(settings: Record<string, unknown>): Promise<void> {
  const { guard } = getEgress();
  const problems: FieldProblem[] = [];
  for (const { path, url } of urlFields(settings, "config.")) {
    const port = Number(url.port) || (url.protocol === "https:" ? 443 : 80);
    try {
      await guard.check(url.hostname, port);
    } catch (e) {
      if (e instanceof EgressRefusedError) problems.push({ path, message: e.message });
    }
  }
  if (problems.length) throw new AppError("validation_failed", "A URL of this connection is refused by the egress policy; see `errors`.", problems);
}
