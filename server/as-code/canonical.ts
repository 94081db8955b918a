/**
 * One canonical form for specs, so that files diff only on real changes and comparisons ignore
 * noise: fixed key order for the document and nodes, node config in the order of the component's
 * own schema (the order of its form), defaults and empty values left out. Pure: the caller passes
 * the config JSON Schema of a component key (from the registry).
 */
import type { AppSpec, IntakeSpec, LineSpec } from "../contracts/as-code";

export type JsonSchema = Record<string, unknown>;
export type SchemaFor = (componentKey: string) => JsonSchema | undefined;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === "object" && !Array.isArray(v);

function propsOf(schema: JsonSchema | undefined): Map<string, JsonSchema> {
  const out = new Map<string, JsonSchema>();
  if (!schema) return out;
  for (const [k, v] of Object.entries((schema.properties as Record<string, JsonSchema> | undefined) ?? {})) out.set(k, v);
  for (const alt of ["anyOf", "oneOf", "allOf"]) {
    for (const s of (schema[alt] as JsonSchema[] | undefined) ?? []) for (const [k, v] of propsOf(s)) if (!out.has(k)) out.set(k, v);
  }
  return out;
}

function itemsOf(schema: JsonSchema | undefined): JsonSchema | undefined {
  if (!schema) return undefined;
  if (isObj(schema.items)) return schema.items as JsonSchema;
  for (const alt of ["anyOf", "oneOf"]) for (const s of (schema[alt] as JsonSchema[] | undefined) ?? []) if (isObj(s.items)) return s.items as JsonSchema;
  return undefined;
}

/** Object keys in schema order, then the rest alphabetically; recursive; arrays keep their order. */
export function orderBySchema(value: unknown, schema?: JsonSchema): unknown {
  if (Array.isArray(value)) {
    const item = itemsOf(schema);
    return value.map((v) => orderBySchema(v, item));
  }
  if (!isObj(value)) return value;
  const props = propsOf(schema);
  const known = [...props.keys()].filter((k) => k in value);
  const rest = Object.keys(value)
    .filter((k) => !props.has(k))
    .sort();
  const out: Obj = {};
  for (const k of [...known, ...rest]) if (value[k] !== undefined) out[k] = orderBySchema(value[k], props.get(k));
  return out;
}

export function canonicalApp(s: AppSpec, schemaFor: SchemaFor): AppSpec {
  const out: Obj = { key: s.key, name: s.name };
  if (s.description) out.description = s.description;
  out.enabled = s.enabled ?? false;
  out.concurrency = s.concurrency ?? 5;
  if (s.errorHandler) out.errorHandler = s.errorHandler;
  const graph: Obj = {
    nodes: s.graph.nodes.map((node) => {
      const nd: Obj = { id: node.id, name: node.name, key: node.key };
      if (node.disabled) nd.disabled = true;
      if (node.connection) nd.connection = node.connection;
      nd.config = orderBySchema(node.config ?? {}, schemaFor(node.key));
      if (node.position) nd.position = { x: node.position.x, y: node.position.y };
      if (node.notes) nd.notes = node.notes;
      return nd;
    }),
    edges: (s.graph.edges ?? []).map((e) => ({ from: e.from, to: e.to })),
  };
  if (s.graph.notes?.length) {
    graph.notes = s.graph.notes.map((note) => {
      const o: Obj = { id: note.id, text: note.text, position: { x: note.position.x, y: note.position.y } };
      if (note.size) o.size = { width: note.size.width, height: note.size.height };
      return o;
    });
  }
  out.graph = graph;
  return out as AppSpec;
}

export function canonicalLine(s: LineSpec): LineSpec {
  return { key: s.key, name: s.name, steps: (s.steps ?? []).map((st) => ({ name: st.name, automation: st.automation })) };
}

export function canonicalIntake(s: IntakeSpec): IntakeSpec {
  return {
    key: s.key,
    name: s.name,
    line: s.line,
    open: s.open ?? true,
    secret: { secret: s.secret.secret },
    // Left out when off / the installation's, as exports write them: `false` in a file is no change.
    ...(s.requireTimestampedSignature ? { requireTimestampedSignature: true } : {}),
    ...(s.signatureToleranceSeconds !== undefined ? { signatureToleranceSeconds: s.signatureToleranceSeconds } : {}),
  };
}
