/**
 * Known defects of the vendor OpenAPI files that would make a validator reject requests the real
 * API accepts. Applied to the parsed definition before a validator is built; each fix is listed here.
 *
 * jsm-ops.v3.json:
 *  1. Operation ids are reused across paths ("create", "list", "delete", ...). Validators keyed by
 *     operationId then check a request against another path's operation; ids are made unique.
 *  2. `typeSpecificProperties` of Create/UpdateIntegrationRequest, CreateIntegrationActionRequest and
 *     others declare `additionalProperties: {type: object}`, while the spec's own examples (and the
 *     product) use strings and booleans (`url`, `addAlertDescription`, ...): values are left untyped.
 *  3. `{cloudId}` appears in every path but is not declared as a parameter of most operations.
 *     (Handled by the validators: an undeclared `cloudId` path parameter is not an error.)
 */
type Json = Record<string, unknown>;

export function applySpecQuirks<T extends object>(file: string, definition: T): T {
  if (!file.includes("jsm-ops")) return definition;
  const def = definition as Json;
  const seen = new Map<string, number>();
  for (const [p, item] of Object.entries(def.paths as Record<string, Record<string, { operationId?: string }>>)) {
    for (const [m, op] of Object.entries(item)) {
      if (!op || typeof op !== "object" || !op.operationId) continue;
      const n = seen.get(op.operationId) ?? 0;
      seen.set(op.operationId, n + 1);
      if (n > 0) op.operationId = `${op.operationId}__${m}_${p}`;
    }
  }
  for (const item of Object.values(def.paths as Record<string, Record<string, { security?: Array<Record<string, string[]>>; "x-atlassian-oauth2-scopes"?: unknown }>>)) {
    for (const op of Object.values(item)) {
      if (!op || typeof op !== "object" || op["x-atlassian-oauth2-scopes"]) continue;
      const oauth = op.security?.find((s) => Array.isArray(s.OAuth2) && s.OAuth2.length)?.OAuth2;
      if (oauth) op["x-atlassian-oauth2-scopes"] = [{ scheme: "OAuth2", scopes: oauth, state: "Current" }];
    }
  }
  const schemas = ((def.components as Json | undefined)?.schemas ?? {}) as Record<string, { properties?: Record<string, Json> }>;
  for (const schema of Object.values(schemas)) {
    for (const [name, prop] of Object.entries(schema.properties ?? {})) {
      if (/SpecificProperties$|^fieldMappings$/.test(name) && prop && typeof prop === "object" && prop.additionalProperties) prop.additionalProperties = {};
    }
  }
  return definition;
}

/** Filter for validator errors caused by quirk 3. */
export function isUndeclaredCloudIdError(e: { instancePath?: string; params?: unknown }): boolean {
  return e.instancePath === "/path" && (e.params as { additionalProperty?: string } | undefined)?.additionalProperty === "cloudId";
}
