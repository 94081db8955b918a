/** Reads a JSON request body: 415 unless JSON, 413 over the limit, 400 when malformed or nested deeper than MAX_JSON_DEPTH. Empty → undefined. */
import { AppError } from "../errors";
import { readBytesWithin } from "../http/bounded-body";
import { hasNulEscape, jsonDepth, MAX_JSON_DEPTH, NUL_MESSAGE, tooDeepMessage } from "../http/json-depth";

export function isJsonContentType(ct: string | null): boolean {
  if (!ct) return false;
  const type = ct.split(";")[0]!.trim().toLowerCase();
  return type === "application/json" || (type.startsWith("application/") && type.endsWith("+json"));
}

export async function readJsonBody(request: Request, maxBytes: number): Promise<{ value: unknown; raw: string }> {
  const declared = Number(request.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > maxBytes) {
    throw new AppError("payload_too_large", `The body is ${declared} bytes; the limit is ${maxBytes} bytes.`);
  }
  const bytes = await readBytesWithin(request, maxBytes);
  if (!bytes) throw new AppError("payload_too_large", `The body is over the limit of ${maxBytes} bytes.`);
  if (bytes.toString("latin1").trim() === "") return { value: undefined, raw: "" };
  if (!isJsonContentType(request.headers.get("content-type"))) {
    throw new AppError(
      "unsupported_media_type",
      `Send the body as JSON with \`Content-Type: application/json\` (got ${request.headers.get("content-type") ?? "none"}).`,
    );
  }
  let raw: string;
  try {
    // JSON is UTF-8 (RFC 8259): bytes that are not are refused, not stored as U+FFFD. A leading BOM is dropped.
    raw = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new AppError("bad_request", "The body is not valid UTF-8; send JSON text encoded as UTF-8.", [{ path: "", message: "Invalid UTF-8" }]);
  }
  if (jsonDepth(raw) > MAX_JSON_DEPTH)
    throw new AppError("bad_request", tooDeepMessage(), [{ path: "", message: `Nested deeper than ${MAX_JSON_DEPTH} levels` }]);
  if (hasNulEscape(raw)) throw new AppError("bad_request", NUL_MESSAGE, [{ path: "", message: "NUL character" }]);
  try {
    return { value: JSON.parse(raw), raw };
  } catch (e) {
    throw new AppError("bad_request", `The body is not valid JSON: ${(e as Error).message}`, [{ path: "", message: "Malformed JSON" }]);
  }
}
