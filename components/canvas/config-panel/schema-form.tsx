"use client";
/**
 * Generated configuration form: JSON Schema (from the component's zod schema) + our ui-meta keys
 * → labelled, keyboard-reachable fields with inline checks and the server's problems on the exact field.
 */
import { Braces, Type } from "lucide-react";
import { lazy, Suspense, useState } from "react";
import type { JsonSchema } from "../types";
import { describedBy, FieldShell } from "./fields/field-shell";
import { BooleanInput, DateTimeInput, MultiSelectInput, NumberInput, SecretInput, SelectInput, TextInput } from "./fields/basic-fields";
import { JsonField } from "./fields/json-field";
import { KeyValueField } from "./fields/keyvalue-field";
import { ListField } from "./fields/list-field";
import { ResourcePicker } from "./fields/resource-picker";
import { fieldId, useFormEnv } from "./form-context";
import {
  checkValue,
  discriminated,
  enumOptions,
  fieldKind,
  initialValue,
  isExpression,
  labelOf,
  orderedProperties,
  placeholderOf,
  unwrap,
} from "./schema-utils";

const ExpressionField = lazy(() => import("./fields/expression-field").then((m) => ({ default: m.ExpressionField })));

export interface SchemaFormProps {
  schema: JsonSchema;
  value: Record<string, unknown>;
  /** Called with the top-level keys that changed (`undefined` removes a key). */
  onChange: (patch: Record<string, unknown>) => void;
}

export function SchemaForm({ schema, value, onChange }: SchemaFormProps) {
  const [touched, setTouched] = useState<Set<string>>(new Set());
  const touch = (path: string) => setTouched((t) => (t.has(path) ? t : new Set(t).add(path)));
  const props = orderedProperties(unwrap(schema));
  if (!props.length) return <p className="text-sm text-muted">This step has no settings.</p>;
  return (
    <div className="space-y-4">
      {props.map(([key, child]) => (
        <FieldRenderer
          key={key}
          name={key}
          path={key}
          schema={child}
          required={(schema.required ?? []).includes(key)}
          value={value[key]}
          siblings={value}
          touched={touched}
          onTouch={touch}
          onChange={(v) => onChange({ [key]: v })}
        />
      ))}
    </div>
  );
}

interface FieldProps {
  name: string;
  path: string;
  schema: JsonSchema;
  required: boolean;
  value: unknown;
  siblings: Record<string, unknown>;
  touched: Set<string>;
  onTouch: (path: string) => void;
  onChange: (v: unknown) => void;
}

function FieldRenderer(props: FieldProps) {
  const { name, path, schema, required, value, siblings, touched, onTouch, onChange } = props;
  const env = useFormEnv();
  const s = unwrap(schema);
  const [jsonError, setJsonError] = useState<string | null>(null);
  // The expression preview's error: shown as the field's error unless the server has one for it (same
  // syntax error, with its position), so it is said once.
  const [previewError, setPreviewError] = useState<string | null>(null);
  // A field of any type that takes expressions (Filter's condition) starts as one: typing the `{{ … }}` its
  // help suggests into a JSON box only said "Not valid JSON".
  const [exprMode, setExprMode] = useState(isExpression(value) || (value === undefined && !!s.expression && s.type === undefined && !s.widget));
  // Switched to an expression by the toggle: the editor takes the focus, the caret inside the new `{{ }}`.
  const [focusExpr, setFocusExpr] = useState(false);
  const shownFor = s.visibleWhen && siblings[s.visibleWhen.field];
  if (s.visibleWhen && (s.visibleWhen.oneOf ? !s.visibleWhen.oneOf.includes(shownFor) : shownFor !== s.visibleWhen.equals)) return null;

  const id = fieldId(env, path);
  const label = labelOf(name, schema);
  const kind = fieldKind(s);
  const serverError = env.problems[path];
  const warning = env.warnings?.[path];
  const localError = touched.has(path) ? checkValue(s, value, required) : null;
  const shownPreviewError = previewError && isExpression(value) ? `Expression: ${previewError}` : null;
  const error = jsonError ?? serverError ?? shownPreviewError ?? localError;
  const help = s.description;
  const db = describedBy(id, help, error);
  const change = (v: unknown) => {
    onTouch(path);
    onChange(v);
  };
  // A value set to an expression elsewhere (the API, a paste, undo) shows as one, whatever the field's kind.
  const exprAllowed = !!s.expression || isExpression(value);
  const showExpr = exprAllowed && (exprMode || isExpression(value));
  const toggle = exprAllowed ? (
    <button
      type="button"
      className="inline-flex items-center gap-1 rounded px-1.5 py-0.5 text-[11px] font-medium text-muted hover:bg-zinc-100 aria-pressed:bg-accent-soft aria-pressed:text-accent-strong"
      aria-pressed={showExpr}
      disabled={env.readOnly}
      aria-label={`${showExpr ? "Use a fixed value for" : "Use an expression for"} ${label}`}
      data-testid={`expr-toggle-${path}`}
      onClick={() => {
        if (showExpr) {
          setExprMode(false);
          change(isExpression(value) ? undefined : value);
        } else {
          setExprMode(true);
          setFocusExpr(true);
          if (value === undefined || value === "" || typeof value !== "string") change("{{  }}");
        }
      }}
    >
      {showExpr ? <Type size={12} aria-hidden /> : <Braces size={12} aria-hidden />}
      {showExpr ? "Fixed" : "Expression"}
    </button>
  ) : undefined;

  if (showExpr && !s.togglable) {
    return (
      <FieldShell id={id} path={path} label={label} required={required} help={help} error={error} warning={warning} aside={toggle}>
        <div data-path={path} onBlur={() => onTouch(path)}>
          <Suspense fallback={<div className="input h-8 animate-pulse bg-zinc-50" />}>
            <ExpressionField
              id={id}
              label={label}
              value={typeof value === "string" ? value : ""}
              onChange={change}
              describedBy={db}
              autoFocus={focusExpr}
              onError={setPreviewError}
            />
          </Suspense>
        </div>
      </FieldShell>
    );
  }

  if (s.togglable) {
    const on = value !== undefined;
    return (
      <section className="rounded-md border border-border" data-testid={`section-${path}`}>
        <div className="flex items-center justify-between gap-2 px-3 py-2">
          <span className="text-sm font-medium" id={`${id}-toggle-label`}>
            {label}
          </span>
          <BooleanInput
            id={`${id}-toggle`}
            label={`Enable ${label}`}
            value={on}
            disabled={env.readOnly}
            onChange={(v) => onChange(v ? initialValue({ ...s, togglable: false }) : undefined)}
          />
        </div>
        {on && (
          <div className="border-t border-border px-3 py-3">
            <FieldRenderer {...props} schema={{ ...s, togglable: false, title: s.title ?? label }} />
          </div>
        )}
      </section>
    );
  }

  if (kind === "object") {
    const obj = (value && typeof value === "object" ? value : {}) as Record<string, unknown>;
    return (
      <FieldShell id={id} path={path} label={label} required={required} help={help} error={serverError} warning={warning} aside={toggle} group>
        <div className="space-y-3 rounded-md border border-border p-3">
          {orderedProperties(s).map(([k, child]) => (
            <FieldRenderer
              key={k}
              {...{ touched, onTouch }}
              name={k}
              path={`${path}.${k}`}
              schema={child}
              required={(s.required ?? []).includes(k)}
              value={obj[k]}
              siblings={obj}
              onChange={(v) => change({ ...obj, [k]: v })}
            />
          ))}
        </div>
      </FieldShell>
    );
  }

  if (kind === "union") {
    const d = discriminated(s)!;
    const obj = (value && typeof value === "object" ? value : {}) as Record<string, unknown>;
    const chosen = d.variants.find((v) => v.value === String(obj[d.key] ?? (s.default as Record<string, unknown> | undefined)?.[d.key] ?? ""));
    return (
      <FieldShell id={id} path={path} label={label} required={required} help={help} error={serverError} warning={warning} aside={toggle} group>
        <div className="space-y-3">
          <SelectInput
            id={`${id}-${d.key}`}
            value={chosen?.value}
            required
            options={d.variants.map((v) => ({ value: v.value, label: v.label }))}
            onChange={(v) => change(v === undefined ? undefined : { [d.key]: v })}
          />
          {chosen && orderedProperties(chosen.schema).filter(([k]) => k !== d.key).length > 0 && (
            <div className="space-y-3 rounded-md border border-border p-3">
              {orderedProperties(chosen.schema)
                .filter(([k]) => k !== d.key)
                .map(([k, child]) => (
                  <FieldRenderer
                    key={`${chosen.value}-${k}`}
                    {...{ touched, onTouch }}
                    name={k}
                    path={`${path}.${k}`}
                    schema={child}
                    required={(chosen.schema.required ?? []).includes(k)}
                    value={obj[k]}
                    siblings={obj}
                    onChange={(v) => change({ ...obj, [d.key]: chosen.value, [k]: v })}
                  />
                ))}
            </div>
          )}
        </div>
      </FieldShell>
    );
  }

  if (kind === "list" || kind === "stringList") {
    const items = Array.isArray(value) ? value : [];
    const itemSchema = unwrap(s.items ?? {});
    return (
      <FieldShell id={id} path={path} label={label} required={required} help={help} error={error} warning={warning} aside={toggle} group>
        <ListField
          id={id}
          label={label}
          items={items}
          inline={kind === "stringList"}
          disabled={env.readOnly}
          newItem={() => initialValue(itemSchema)}
          onChange={change}
          renderItem={(i) =>
            kind === "stringList" ? (
              <FieldRenderer
                {...{ touched, onTouch }}
                name={`${label} ${i + 1}`}
                path={`${path}.${i}`}
                schema={{ ...itemSchema, title: `${label} ${i + 1}`, expression: itemSchema.expression ?? s.expression }}
                required
                value={items[i]}
                siblings={{}}
                onChange={(v) => change(items.map((x, j) => (j === i ? v : x)))}
              />
            ) : (
              orderedProperties(itemSchema).map(([k, child]) => {
                const row = (items[i] ?? {}) as Record<string, unknown>;
                return (
                  <FieldRenderer
                    key={k}
                    {...{ touched, onTouch }}
                    name={k}
                    path={`${path}.${i}.${k}`}
                    schema={child}
                    required={(itemSchema.required ?? []).includes(k)}
                    value={row[k]}
                    siblings={row}
                    onChange={(v) => change(items.map((x, j) => (j === i ? { ...row, [k]: v } : x)))}
                  />
                );
              })
            )
          }
        />
      </FieldShell>
    );
  }

  let control;
  {
    // An omitted value shows its schema default (a boolean defaulting to true is on).
    const shown = value === undefined ? s.default : value;
    const placeholder = placeholderOf(s);
    const common = { id, value, onChange: change, invalid: !!error, describedBy: db, placeholder, disabled: env.readOnly };
    switch (kind) {
      case "textarea":
        control = <TextInput {...common} multiline />;
        break;
      case "code":
        control = <TextInput {...common} multiline mono />;
        break;
      case "number":
        control = <NumberInput {...common} integer={s.type === "integer"} />;
        break;
      case "boolean":
        control = <BooleanInput {...common} value={shown} label={label} />;
        break;
      case "select":
        control = <SelectInput {...common} value={shown} options={enumOptions(s) ?? []} required={required} />;
        break;
      case "multiselect":
        control = <MultiSelectInput {...common} options={enumOptions(s.items ?? {}) ?? enumOptions(s) ?? []} />;
        break;
      case "keyvalue":
        control = <KeyValueField id={id} value={value} onChange={change} disabled={env.readOnly} />;
        break;
      case "json":
        control = <JsonField id={id} value={value} onChange={change} describedBy={db} onError={setJsonError} />;
        break;
      case "datetime":
        control = <DateTimeInput {...common} />;
        break;
      case "duration":
        control = <TextInput {...common} placeholder={placeholder ?? "e.g. 1h, 30m, 2h30m"} />;
        break;
      case "secret":
        control = <SecretInput {...common} />;
        break;
      case "resource":
        control = (
          <ResourcePicker id={id} path={path} resource={s.resource ?? { type: name }} value={value} onChange={change} describedBy={db} invalid={!!error} />
        );
        break;
      default:
        control = <TextInput {...common} />;
    }
  }
  return (
    <FieldShell
      id={id}
      path={path}
      label={label}
      required={required}
      help={help}
      error={error}
      warning={warning}
      aside={toggle}
      group={kind === "multiselect" || kind === "keyvalue"}
    >
      <div data-path={path} onBlur={() => onTouch(path)}>
        {control}
      </div>
    </FieldShell>
  );
}
