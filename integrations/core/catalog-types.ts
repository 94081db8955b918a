/**
 * The catalog's shape: what `catalog.list` (tRPC) and `GET /api/v1/catalog` serve, and what the editor
 * reads. Types only, so the editor imports them without pulling integration code into the browser.
 */

/** JSON Schema as the catalog emits it (zod's toJSONSchema), with the UI meta keys of ui-meta.ts. */
export interface JsonSchema {
  type?: string | string[];
  title?: string;
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  const?: unknown;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  format?: string;
  additionalProperties?: boolean | JsonSchema;
  // UI meta keys (ui-meta.ts)
  widget?: string;
  placeholder?: string;
  sensitive?: boolean;
  expression?: boolean;
  resource?: { type: string; dependsOn?: string[]; allowCustom?: boolean };
  visibleWhen?: { field: string; equals?: unknown; oneOf?: unknown[] };
  togglable?: boolean;
  /** Form-only starting value (new node, enabled section, new row); not a schema default. */
  prefill?: unknown;
  order?: number;
  enumLabels?: Record<string, string>;
  [key: string]: unknown;
}

export interface CatalogUnit {
  kind: "component" | "trigger";
  key: string;
  title: string;
  description: string;
  docs: string | null;
  needsConnection: boolean;
  delivery: string | null;
  config: JsonSchema;
  outputType: string;
  output: JsonSchema;
  example: unknown;
}

export interface CatalogIntegration {
  key: string;
  title: string;
  description: string;
  icon: string;
  connection: { kind: "form" | "oauth2"; schema: JsonSchema } | null;
  resources: string[];
  components: CatalogUnit[];
  triggers: CatalogUnit[];
}
