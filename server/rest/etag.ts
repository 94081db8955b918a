/** Automation ETags are the version number: `"v3"`. `If-Match` turns back into `ifVersion`. */
import { AppError } from "../errors";

export function etagFor(version: number): string {
  return `"v${version}"`;
}

/** undefined when absent or `*`; 412 when it names no version. */
export function parseIfMatch(header: string | null): number | undefined {
  if (!header || header.trim() === "*") return undefined;
  const first = header.split(",")[0]!.trim().replace(/^W\//, "");
  const m = /^"?v?(\d{1,9})"?$/.exec(first);
  if (!m) throw new AppError("precondition_failed", `If-Match ${header} is not an ETag this API issued (expected e.g. "v3").`);
  return Number(m[1]);
}
