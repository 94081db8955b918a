import { CompletionContext } from "@codemirror/autocomplete";
import { EditorState } from "@codemirror/state";
import { describe, expect, it } from "vitest";
import { envelopePaths, mergePaths } from "./expression-paths";
import { completionSource } from "./fields/expression-field";
import { previewTemplate } from "./preview";

const alertSchema = { type: "object", properties: { labels: { type: "object" }, status: { type: "string" }, startsAt: { type: "string" } } };
const example = { status: "firing", labels: { alertname: "DiskFull", instance: "db-1:9100" }, startsAt: "2026-01-01T00:00:00Z" };

describe("expression paths", () => {
  it("offers schema paths and example leaves with their sample values", () => {
    const paths = envelopePaths("$trigger", { outputSchema: alertSchema, example });
    const byPath = new Map(paths.map((p) => [p.path, p]));
    expect(byPath.get("$trigger.data.status")).toMatchObject({ type: "string", sample: '"firing"', source: "example" });
    expect(byPath.get("$trigger.data.labels.alertname")).toMatchObject({ sample: '"DiskFull"' });
    expect(byPath.has("$trigger.timestamp")).toBe(true);
  });

  it("prefers the last run over the example for the same path", () => {
    const run = { type: "metrics.alert", timestamp: "x", data: { ...example, labels: { alertname: "CPUHigh" } } };
    const paths = mergePaths(envelopePaths("$trigger", { outputSchema: alertSchema, example, lastRun: run }));
    expect(paths.find((p) => p.path === "$trigger.data.labels.alertname")).toMatchObject({ sample: '"CPUHigh"', source: "run" });
  });

  it("completes the path being typed after $", () => {
    const paths = envelopePaths("$trigger", { outputSchema: alertSchema, example });
    const doc = "{{ $trigger.data.lab";
    const ctx = new CompletionContext(EditorState.create({ doc }), doc.length, false);
    const result = completionSource(paths)(ctx)!;
    expect(result.from).toBe(3);
    const labels = result.options.map((o) => o.label);
    expect(labels[0]).toBe("$trigger.data.labels");
    expect(labels).toContain("$trigger.data.labels.alertname");
    expect(labels.every((l) => l.startsWith("$trigger.data.lab"))).toBe(true);
  });
});

describe("preview", () => {
  const sample = { trigger: { type: "metrics.alert", timestamp: "t", data: example }, steps: { silence: { data: { silenceID: "abc" } } } };
  it("keeps the type of a single expression and stringifies mixed text", async () => {
    expect(await previewTemplate("{{ $trigger.data.labels }}", sample)).toEqual({ value: example.labels });
    expect(await previewTemplate("silence {{ $steps.silence.data.silenceID }} for {{ $trigger.data.labels.instance }}", sample)).toEqual({
      value: "silence abc for db-1:9100",
    });
  });
  it("reports syntax errors instead of throwing", async () => {
    const r = await previewTemplate("{{ $trigger.data.( }}", sample);
    expect(r.error).toBeTruthy();
  });
});
