/**
 * Known defects of the vendor OpenAPI files that would make a validator reject requests the real
 * API accepts. Applied to the parsed definition before a validator is built; each fix is listed here.
 *
 * jsm-ops.v3.json:
 *  1. Operation ids are reused across paths ("create", "list", "delete", ...). Validators keyed by
 *     operationId then check a request against another path's operation; ids are made unique.
 *  2. `typeSpecificProperties` of CreateIntegrationRequest and UpdateIntegrationRequest declares every value
 *     an object (`additionalProperties: {type: object}`), while the same file's own examples send strings and
 *     booleans (`emailUsername`, `suppressNotifications`; `url`, `addAlertDescription`, `headers: {}`...) and
 *     its description lists flags, user names and URLs. The examples win (evidence in docs/spec-decisions.md):
 *     the keys the file documents are typed exactly as its examples show (WEBHOOK_PROPERTY_TYPES), every other
 *     key still has to be an object as the schema says. Nothing else is relaxed: the other
 *     `typeSpecificProperties` / `fieldMappings` maps keep the vendor's object-valued rule.
 *  3. `{cloudId}` appears in every path but is not declared as a parameter of most operations.
 *     (Handled by the validators: an undeclared `cloudId` path parameter is not an error.)
 */
type Json = Record<string, unknown>;

/**
 * Integration properties the vendor file documents by example (CreateIntegrationRequest /
 * UpdateIntegrationRequest `example` and description), with the types those examples use.
 */
export const WEBHOOK_PROPERTY_TYPES: Record<string, Json> = {
  url: { type: "string", format: "uri" },
  headers: { type: "object", additionalProperties: { type: "string" } },
  addAlertDescription: { type: "boolean" },
  addAlertDetails: { type: "boolean" },
  forwardingActionGroupEnabled: { type: "boolean" },
  outgoingSettingsEnabled: { type: "boolean" },
  suppressNotifications: { type: "boolean" },
  emailUsername: { type: "string" },
  allowReadAccess: { type: "boolean" },
  allowWriteAccess: { type: "boolean" },
  allowDeleteAccess: { type: "boolean" },
  allowConfigurationAccess: { type: "boolean" },
};

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
  for (const item of Object.values(
    def.paths as Record<string, Record<string, { security?: Array<Record<string, string[]>>; "x-atlassian-oauth2-scopes"?: unknown }>>,
  )) {
    for (const op of Object.values(item)) {
      if (!op || typeof op !== "object" || op["x-atlassian-oauth2-scopes"]) continue;
      const oauth = op.security?.find((s) => Array.isArray(s.OAuth2) && s.OAuth2.length)?.OAuth2;
      if (oauth) op["x-atlassian-oauth2-scopes"] = [{ scheme: "OAuth2", scopes: oauth, state: "Current" }];
    }
  }
  const schemas = ((def.components as Json | undefined)?.schemas ?? {}) as Record<string, { properties?: Record<string, Json> }>;
  for (const name of ["CreateIntegrationRequest", "UpdateIntegrationRequest"]) {
    const prop = schemas[name]?.properties?.typeSpecificProperties;
    if (!prop) throw new Error(`jsm-ops.v3.json no longer has ${name}.typeSpecificProperties: review spec-quirks.ts`);
    prop.properties = structuredClone(WEBHOOK_PROPERTY_TYPES);
  }
  return definition;
}

/** Filter for validator errors caused by quirk 3. */
export function isUndeclaredCloudIdError(e: { instancePath?: string; params?: unknown }): boolean {
  return e.instancePath === "/path" && (e.params as { additionalProperty?: string } | undefined)?.additionalProperty === "cloudId";
}
