/**
 * Typed UI metadata attached to zod schemas with `.meta(ui({...}))`.
 *
 * zod 4 copies `.meta()` into the output of `z.toJSONSchema`, so the editor's schema form,
 * the REST catalog and the OpenAPI document all read the same keys. Keep this set small.
 */
export type Widget = "text" | "textarea" | "code" | "json" | "select" | "multiselect" | "resource" | "duration" | "datetime" | "keyvalue";

export interface ResourceRef {
  /** Resource type name, resolved by the integration's `resources[type]` loader. */
  type: string;
  /** Config fields (sibling keys) whose values the loader needs, e.g. issue type depends on project. */
  dependsOn?: string[];
  /** When true the picker also accepts free text / an expression, not only a listed option. */
  allowCustom?: boolean;
}

export interface UiMeta {
  title?: string;
  description?: string;
  widget?: Widget;
  placeholder?: string;
  /** Masked input; redacted from logs, step inputs and payload views; stored encrypted for connections. */
  sensitive?: boolean;
  /** The field accepts `{{ … }}` expressions (evaluated at run time, validated after resolution). */
  expression?: boolean;
  resource?: ResourceRef;
  /** Show the field only when another field has the given value (`equals`) or one of the given values (`oneOf`). */
  visibleWhen?: { field: string; equals?: unknown; oneOf?: unknown[] };
  /** An on/off switch that omits the field from the config when off (Update Alert sections). */
  togglable?: boolean;
  /**
   * The value the editor's form starts with: a new node's field, a newly enabled section, a new list row.
   * A form-only default: unlike a schema `.default()` it leaves the field required, so a document saved
   * without the editor (REST) must still give the field.
   */
  prefill?: unknown;
  /** Display order hint for the form; lower first. */
  order?: number;
  /** Human labels for enum values, keyed by value. */
  enumLabels?: Record<string, string>;
}

/** Identity helper that gives `.meta()` calls type checking. */
export function ui(meta: UiMeta): UiMeta & Record<string, unknown> {
  return meta as UiMeta & Record<string, unknown>;
}
