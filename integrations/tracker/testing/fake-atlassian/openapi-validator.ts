/**
 * Validates requests against the vendor OpenAPI files in `../openapi/` with openapi-backend (Ajv underneath).
 * A request the real API would reject by its contract (unknown operation, bad parameter, body not matching
 * the schema) is reported with Ajv's message; the caller answers 400. Also checks the OAuth scopes the
 * operation declares in `x-atlassian-oauth2-scopes` (any one listed alternative must be fully granted).
 * Parsed specs are cached per process: several fake servers in one test file share them.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { OpenAPIBackend, type Request as OARequest } from "openapi-backend";
import addFormats from "ajv-formats";
import { applySpecQuirks, isUndeclaredCloudIdError } from "./ops/spec-quirks";

const OPENAPI_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../openapi");

export interface ValidationOutcome {
  /** Validation problems, empty when the request is valid. */
  errors: string[];
  /** False when the spec has no such operation. */
  known: boolean;
  operationId?: string;
  /** Scope alternatives; undefined when the operation declares none. */
  scopes?: string[][];
}

export class OpenApiValidator {
  private api: OpenAPIBackend;
  private ready: Promise<unknown>;

  constructor(file: string) {
    const definition = applySpecQuirks(file, JSON.parse(readFileSync(path.join(OPENAPI_DIR, file), "utf8")));
    this.api = new OpenAPIBackend({
      definition,
      quick: true,
      strict: false,
      validate: true,
      coerceTypes: true,
      ajvOpts: { strict: false, allErrors: true, logger: false } as never,
      customizeAjv: (ajv) => {
        addFormats(ajv as never);
        return ajv;
      },
    });
    this.ready = this.api.init();
  }

  async validate(req: {
    method: string;
    path: string;
    query: Record<string, string | string[]>;
    headers: Record<string, string>;
    body: unknown;
  }): Promise<ValidationOutcome> {
    await this.ready;
    const oreq: OARequest = { method: req.method.toLowerCase(), path: req.path, query: req.query, headers: req.headers, body: req.body as never };
    const op = this.api.matchOperation(oreq);
    if (!op) return { errors: [`No operation ${req.method} ${req.path} in the API`], known: false };
    const result = this.api.validateRequest(oreq, op);
    const errors = (result.errors ?? [])
      .filter((e) => !isUndeclaredCloudIdError(e))
      .map((e) => {
        const where = e.instancePath.replace(/^\//, "").replace(/\//g, ".");
        const extra =
          e.keyword === "enum"
            ? ` (${(e.params as { allowedValues: unknown[] }).allowedValues.join(", ")})`
            : e.keyword === "additionalProperties"
              ? ` '${(e.params as { additionalProperty: string }).additionalProperty}'`
              : "";
        return `${where || "request"} ${e.message}${extra}`;
      });
    const x = (op as unknown as Record<string, unknown>)["x-atlassian-oauth2-scopes"] as Array<{ scopes: string[] }> | undefined;
    return { errors, known: true, operationId: op.operationId, scopes: x?.map((s) => s.scopes) };
  }
}

const cache = new Map<string, OpenApiValidator>();

export function validatorFor(file: string): OpenApiValidator {
  let v = cache.get(file);
  if (!v) {
    v = new OpenApiValidator(file);
    cache.set(file, v);
  }
  return v;
}

export function scopesSatisfied(granted: string[], alternatives: string[][] | undefined): boolean {
  if (!alternatives?.length) return true;
  return alternatives.some((alt) => alt.every((s) => granted.includes(s)));
}
