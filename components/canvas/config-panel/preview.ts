/**
 * Live preview of a `{{ }}` template against sample data (last run, test event or examples).
 * Same rules as the runner: a value that is exactly one `{{ }}` keeps the expression's type,
 * mixed text becomes a string. JSONata runs in the browser here; it only sees the sample data.
 */
import jsonata from "jsonata";
import { textInTemplate } from "@/integrations/core/templates";

const ONE = /^\s*\{\{([\s\S]*?)\}\}\s*$/;
const ANY = /\{\{([\s\S]*?)\}\}/g;

async function evalOne(expr: string, sample: { trigger?: unknown; steps: Record<string, unknown> }) {
  const compiled = jsonata(expr.trim());
  const run = compiled.evaluate({}, { trigger: sample.trigger, steps: sample.steps });
  const timeout = new Promise((_, reject) => setTimeout(() => reject(new Error("Took too long to evaluate.")), 500));
  return Promise.race([run, timeout]);
}

export async function previewTemplate(
  template: string,
  sample: { trigger?: unknown; steps: Record<string, unknown> },
): Promise<{ value?: unknown; error?: string }> {
  try {
    const one = template.match(ONE);
    if (one && !one[1].includes("{{")) return { value: await evalOne(one[1], sample) };
    const parts: string[] = [];
    let last = 0;
    for (const m of template.matchAll(ANY)) {
      parts.push(template.slice(last, m.index));
      const v = await evalOne(m[1], sample);
      parts.push(textInTemplate(v));
      last = (m.index ?? 0) + m[0].length;
    }
    parts.push(template.slice(last));
    return { value: parts.join("") };
  } catch (err) {
    const e = err as { message?: string; position?: number };
    return { error: e.message ?? String(err) };
  }
}
