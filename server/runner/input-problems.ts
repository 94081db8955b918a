/**
 * Says why a step's resolved config failed its schema, field by field. A field whose `{{ }}` expression gave
 * nothing (the alert had no such label or annotation) is named with its expression, not with the schema's
 * "expected string, received undefined".
 */
interface Issue {
  path: PropertyKey[];
  message: string;
}

const at = (value: unknown, path: PropertyKey[]): unknown =>
  path.reduce<unknown>((v, k) => (v !== null && typeof v === "object" ? (v as Record<PropertyKey, unknown>)[k] : undefined), value);

export function describeInputIssues(config: unknown, resolved: unknown, issues: readonly Issue[]): string {
  return issues
    .map((i) => {
      const field = i.path.map(String).join(".") || "config";
      const raw = at(config, i.path);
      const value = at(resolved, i.path);
      const empty = value === undefined || value === null || (typeof value === "string" && !value.trim());
      if (typeof raw === "string" && raw.includes("{{") && empty) return `${field}: ${raw.trim()} gave no value (${i.message})`;
      return `${field}: ${i.message}`;
    })
    .join("; ");
}
