import { describe, expect, it } from "vitest";
import { describeIntegration } from "../core/catalog";
import { tracker } from "./index";
import { jsmOpsComponents, jsmOpsResources, jsmOpsTriggers } from "./jsm-ops";

const OUTPUT_TYPES: Record<string, string> = {
  "tracker.approveWorkflow": "tracker.approval",
  "tracker.createIncident": "tracker.incident.created",
  "tracker.getIncident": "tracker.incident.fetched",
  "tracker.deleteIncident": "tracker.incident.deleted",
  "tracker.createAlert": "tracker.alert.created",
  "tracker.getAlert": "tracker.alert.fetched",
  "tracker.updateAlert": "tracker.alert.updated",
  "tracker.deleteAlert": "tracker.alert.deleted",
  "tracker.createHeartbeat": "tracker.heartbeat.created",
  "tracker.updateHeartbeat": "tracker.heartbeat.updated",
  "tracker.deleteHeartbeat": "tracker.heartbeat.deleted",
  "tracker.pingHeartbeat": "tracker.heartbeat.pinged",
  "tracker.onIncident": "tracker.incident",
  "tracker.onAlert": "tracker.alert",
};

describe("JSM and Ops units contract", () => {
  it("registers every unit with the output type the spec names", () => {
    const units = [...jsmOpsComponents, ...jsmOpsTriggers];
    expect(Object.fromEntries(units.map((u) => [u.key, u.outputType]))).toEqual(OUTPUT_TYPES);
    for (const u of units) expect([...tracker.components, ...tracker.triggers]).toContain(u);
  });

  it("configs convert to JSON Schema, examples parse with their outputs, every picker has a loader", () => {
    const cat = describeIntegration(tracker);
    const loaders = new Set(Object.keys(tracker.resources ?? {}));
    for (const key of Object.keys(jsmOpsResources)) expect(loaders.has(key)).toBe(true);
    for (const u of [...jsmOpsComponents, ...jsmOpsTriggers]) {
      expect(() => u.output.parse(u.example), u.key).not.toThrow();
      const json = [...cat.components, ...cat.triggers].find((c) => c.key === u.key)!.config;
      for (const m of JSON.stringify(json).matchAll(/"resource":\{"type":"(\w+)"/g)) expect(loaders.has(m[1]!), `${u.key} → ${m[1]}`).toBe(true);
    }
  });

  it("list fields put their picker on the items (a picker on the list itself would store a single string)", () => {
    const cat = describeIntegration(tracker);
    for (const u of [...cat.components, ...cat.triggers].filter((x) => Object.keys(OUTPUT_TYPES).includes(x.key))) {
      for (const [k, p] of Object.entries((u.config.properties ?? {}) as Record<string, { type?: string; resource?: unknown }>)) {
        if (p.type === "array") expect(p.resource, `${u.key}.${k}`).toBeUndefined();
      }
    }
    const onIncident = cat.triggers.find((t) => t.key === "tracker.onIncident")!;
    expect((onIncident.config.properties as Record<string, { items: { resource: { type: string } } }>).requestTypes.items.resource.type).toBe(
      "incidentRequestTypeRefs",
    );
  });

  it("Update Alert and Update Heartbeat sections are togglable switches", () => {
    const cat = describeIntegration(tracker);
    const props = (key: string) => (cat.components.find((c) => c.key === key)!.config.properties ?? {}) as Record<string, { togglable?: boolean }>;
    for (const k of ["description", "message", "priority", "assignment", "newNote", "updateNote", "acknowledge", "close"])
      expect(props("tracker.updateAlert")[k]?.togglable, k).toBe(true);
    for (const k of ["description", "interval", "intervalUnit", "enabled", "alertMessage", "alertTags", "alertPriority"])
      expect(props("tracker.updateHeartbeat")[k]?.togglable, k).toBe(true);
  });
});
