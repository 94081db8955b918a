/**
 * Checks one REST response against the served OpenAPI document: the status is documented for the
 * operation, the Content-Type is the documented media type (application/json for answers,
 * application/problem+json for problems), every header the document marks `required` is there and
 * every documented header that is there matches its schema (RateLimit-* integers, Retry-After…), and
 * the body matches its schema. Ajv (already a dev dependency, with ajv-formats) compiles the
 * document's own JSON Schema 2020-12 (OpenAPI 3.1), so nothing is re-described here.
 */
import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { findOperation } from "./find-operation";

type HeaderObject = { required?: boolean; schema?: object };
type ResponseObject = { headers?: Record<string, HeaderObject>; content?: Record<string, { schema?: { $ref?: string } }> };
export type OpenApiDoc = { paths: Record<string, Record<string, { responses: Record<string, ResponseObject> }>> };

export type ConformanceCheck = (method: string, pathname: string, status: number, headers: Headers, body: unknown) => string | null;

export function createConformanceCheck(doc: OpenApiDoc): ConformanceCheck {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ ...doc, $id: "openapi.json" } as object);
  const cache = new Map<string, ReturnType<typeof ajv.compile>>();
  const compiled = (ptr: string) => {
    let v = cache.get(ptr);
    if (!v) cache.set(ptr, (v = ajv.compile({ $ref: ptr })));
    return v;
  };

  return (method, pathname, status, headers, body) => {
    const found = findOperation(method, pathname);
    if (!found) {
      // Unknown paths: 404, or the front door's 400 for a broken escape or 308 for a trailing slash (server/http/front-door.ts).
      const code = (body as { code?: string })?.code;
      const frontDoor = (status === 400 && code === "bad_request") || (status === 308 && code === "trailing_slash");
      return (status === 404 && code === "not_found") || frontDoor ? null : `no operation for ${method} ${pathname}`;
    }
    const { op } = found;
    const m = method.toLowerCase();
    const entry = doc.paths[op.path]?.[m];
    // 405 for a method the path does not have, and OPTIONS (204 with Allow): not operations of the document.
    if (!entry) return status === 405 || (method === "OPTIONS" && status === 204) ? null : `${method} ${op.path} is not in the document`;
    const where = `${method} ${pathname} ${status}`;
    const resp = entry.responses[String(status)];
    if (!resp) return `status ${status} is not documented for ${method} ${op.path}`;

    for (const [name, h] of Object.entries(resp.headers ?? {})) {
      const value = headers.get(name);
      if (value === null) {
        if (h.required) return `${where}: the required header ${name} is missing`;
        continue;
      }
      const schema = h.schema as { type?: string } | undefined;
      // Header values are strings on the wire; an integer header must be one.
      const typed = schema?.type === "integer" && /^-?\d+$/.test(value) ? Number(value) : value;
      const v = compiled(`openapi.json#/paths/${pointer(op.path)}/${m}/responses/${status}/headers/${pointer(name)}/schema`);
      if (!v(typed)) return `${where}: header ${name}: ${JSON.stringify(value)} ${ajv.errorsText(v.errors, { dataVar: "" })}`;
    }

    const media = resp.content ? Object.keys(resp.content)[0] : undefined;
    const contentType = headers.get("content-type")?.split(";")[0]!.trim().toLowerCase() ?? null;
    if (!media) return body === null || body === "" ? null : `${where} should have no body`;
    if (contentType !== media) return `${where}: Content-Type is ${contentType ?? "missing"}, the document says ${media}`;
    // Responses that are a bare $ref (every problem response) share one compiled validator.
    const ref = resp.content![media]!.schema?.$ref;
    const ptr = ref?.startsWith("#/")
      ? `openapi.json${ref}`
      : `openapi.json#/paths/${pointer(op.path)}/${m}/responses/${status}/content/${pointer(media)}/schema`;
    const v = compiled(ptr);
    return v(body) ? null : `${where}: ${ajv.errorsText(v.errors)}`;
  };
}

/** One JSON pointer segment (RFC 6901). */
function pointer(segment: string): string {
  return segment.replace(/~/g, "~0").replace(/\//g, "~1");
}
