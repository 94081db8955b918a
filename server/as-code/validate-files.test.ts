/** Offline validation of spec files: each problem class, reported on the line (and column) it concerns. */
import Ajv2020 from "ajv/dist/2020";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { MAX_BUNDLE_RESOURCES } from "../contracts/as-code";
import { MAX_GRAPH_NODES } from "../contracts/graph";
import { validateDocument } from "../services/automations/validate-automation";
import { buildFilesJsonSchema } from "./json-schema";
import { validateFiles } from "./validate-files";

const GOOD = `kind: automation
key: disk
name: Silence disk alerts
graph:
  nodes:
    - id: t
      name: hook
      key: core.webhook
      config:
        authentication: bearer
        secret: { secret: disk-hook }
    - id: s
      name: silence
      key: metrics.createSilence
      connection: prod prometheus
      config:
        matchers:
          - name: alertname
            value: "{{ $trigger.data.body.alert }}"
        duration: 1h
        createdBy: conveyor
        comment: auto
    - id: q
      name: check
      key: metrics.getSilence
      connection: prod prometheus
      config:
        silence: "{{ $steps.silence.data.silenceID }}"
  edges:
    - { from: t, to: s }
    - { from: s, to: q }
`;
const LINE = `kind: line\nkey: follow-up\nname: Follow-up\nsteps:\n  - name: Silence\n    automation: disk\n`;
const INTAKE = `kind: intake\nkey: inbox\nname: Inbox\nline: follow-up\nsecret: { secret: inbox }\n`;

/** 1-based line of the first line containing `needle` (after `from`, when given). */
function lineOf(text: string, needle: string, from?: string): number {
  const lines = text.split("\n");
  const start = from ? lines.findIndex((l) => l.includes(from)) : 0;
  const i = lines.findIndex((l, j) => j >= start && l.includes(needle));
  if (i < 0) throw new Error(`"${needle}" not in the text`);
  return i + 1;
}

function check(text: string, others: Array<{ file: string; text: string }> = [{ file: "lines/follow-up.yaml", text: LINE }]) {
  return validateFiles([{ file: "automations/disk.yaml", text }, ...others]).problems.map((p) => `${p.file}:${p.line}:${p.column} ${p.message}`);
}

const cases: Array<{ name: string; edit: (t: string) => string; at: (t: string) => number; message: RegExp }> = [
  { name: "YAML syntax", edit: (t) => t.replace("        duration: 1h", "       duration: 1h"), at: (t) => lineOf(t, "duration: 1h"), message: /YAML: / },
  {
    name: "unknown field",
    edit: (t) => t.replace("name: Silence disk alerts", "name: Silence disk alerts\ncolour: red"),
    at: (t) => lineOf(t, "colour"),
    message: /Unknown field "colour"/,
  },
  {
    name: "unknown component key",
    edit: (t) => t.replace("key: metrics.getSilence", "key: metrics.getSilense"),
    at: (t) => lineOf(t, "metrics.getSilense"),
    message: /Unknown trigger or component "metrics.getSilense"/,
  },
  {
    name: "invalid input",
    edit: (t) => t.replace("authentication: bearer", "authentication: basic"),
    at: (t) => lineOf(t, "authentication: basic"),
    message: /Invalid option/,
  },
  { name: "missing input (named)", edit: (t) => t.replace("        createdBy: conveyor\n", ""), at: (t) => lineOf(t, "matchers:"), message: /^createdBy: / },
  {
    name: "unknown input",
    edit: (t) => t.replace("duration: 1h", "duraton: 1h"),
    at: (t) => lineOf(t, "duraton"),
    message: /Unknown input "duraton" for metrics.createSilence/,
  },
  {
    name: "expression syntax",
    edit: (t) => t.replace("{{ $trigger.data.body.alert }}", "{{ $trigger.data.body.alert + }}"),
    at: (t) => lineOf(t, "alert + }}"),
    message: /Expression: syntax error/,
  },
  {
    name: "edge to an unknown node",
    edit: (t) => t.replace("{ from: s, to: q }", "{ from: s, to: z }"),
    at: (t) => lineOf(t, "to: z"),
    message: /Edge refers to unknown node "z"/,
  },
  {
    name: "cycle",
    edit: (t) => t.replace("    - { from: s, to: q }", "    - { from: s, to: q }\n    - { from: q, to: s }"),
    at: (t) => lineOf(t, "id: s"),
    message: /part of a cycle/,
  },
  {
    name: "duplicate node name",
    edit: (t) => t.replace("name: check", "name: silence"),
    at: (t) => lineOf(t, "name: silence", "id: q"),
    message: /Another node is already named "silence"/,
  },
  {
    name: "no path from a trigger",
    edit: (t) => t.replace("    - { from: s, to: q }\n", ""),
    at: (t) => lineOf(t, "id: q"),
    message: /"check" has no path from a trigger/,
  },
  {
    name: "missing connection",
    edit: (t) => t.replace("      connection: prod prometheus\n      config:\n        silence", "      config:\n        silence"),
    at: (t) => lineOf(t, "id: q"),
    message: /^connection: Choose a .* connection/,
  },
  {
    name: "secret value in the file",
    edit: (t) => t.replace("secret: { secret: disk-hook }", "secret: hunter2-is-long-enough"),
    at: (t) => lineOf(t, "hunter2"),
    message: /A secret value must not be in a file: write \{ secret: disk-hook \} and give the value in CONVEYOR_SECRET_DISK_HOOK/,
  },
  {
    name: "error handler not among the files",
    edit: (t) => t.replace("name: Silence disk alerts", "name: Silence disk alerts\nerrorHandler: on-failure"),
    at: (t) => lineOf(t, "errorHandler"),
    message: /No automation file has the key "on-failure"/,
  },
  { name: "bad key", edit: (t) => t.replace("key: disk", "key: Disk Alerts"), at: (t) => lineOf(t, "key: Disk Alerts"), message: /lowercase letters/ },
];

describe("conveyor validate (offline)", () => {
  it("accepts a valid set of files and returns the bundle", () => {
    const r = validateFiles([
      { file: "automations/disk.yaml", text: GOOD },
      { file: "lines/follow-up.yaml", text: LINE },
      { file: "intakes/inbox.yaml", text: INTAKE },
    ]);
    expect(r.problems).toEqual([]);
    expect(r.bundle.apps[0]!.graph.nodes[0]!.config).toEqual({ authentication: "bearer", secret: { secret: "disk-hook" } });
    expect(r.bundle.lines[0]!.steps).toEqual([{ name: "Silence", automation: "disk" }]);
  });

  for (const c of cases) {
    it(`reports ${c.name} on its line`, () => {
      const text = c.edit(GOOD);
      expect(text).not.toBe(GOOD);
      const found = check(text);
      const hit = found.find((p) => p.startsWith(`automations/disk.yaml:${c.at(text)}:`) && c.message.test(p.replace(/^\S+ /, "")));
      expect(hit, `expected ${c.message} at line ${c.at(text)}, got:\n${found.join("\n")}`).toBeDefined();
    });
  }

  it("reports an unknown input once, on its key (also when the rest of the node's config is valid)", () => {
    const text = GOOD.replace("authentication: bearer", "authentication: bearer\n        signatureHeadr: x-sig");
    expect(check(text)).toEqual([`automations/disk.yaml:${lineOf(text, "signatureHeadr")}:9 Unknown input "signatureHeadr" for core.webhook`]);
  });

  it("accepts an automation as large as the editor saves (1,000 nodes), and names the limit past it", () => {
    const file = (n: number) => {
      let t = "kind: automation\nkey: big\nname: Big\ngraph:\n  nodes:\n    - { id: t, name: hook, key: core.webhook }\n";
      for (let i = 1; i < n; i++) t += `    - { id: f${i}, name: f${i}, key: core.filter, config: { condition: "{{ $trigger.data.body.n = ${i} }}" } }\n`;
      t += "  edges:\n";
      for (let i = 1; i < n; i++) t += `    - { from: ${i === 1 ? "t" : `f${i - 1}`}, to: f${i} }\n`;
      return [{ file: "automations/big.yaml", text: t }];
    };
    expect(validateFiles(file(MAX_GRAPH_NODES)).problems).toEqual([]);
    expect(validateFiles(file(MAX_GRAPH_NODES + 1)).problems.map((p) => `${p.line}:${p.column} ${p.message}`)).toEqual([
      `6:5 An automation holds at most ${MAX_GRAPH_NODES} nodes`,
    ]);
  });

  it("reports a YAML mistake once, where to look: an unclosed quote where it opens, a tab without ten follow-on errors, two documents in words", () => {
    const unclosed = GOOD.replace('value: "{{ $trigger.data.body.alert }}"', 'value: "{{ $trigger.data.body.alert }}');
    // The line names the automation of the unreadable file: said with that possibility, not as a second mistake.
    expect(check(unclosed)).toContain('lines/follow-up.yaml:6:17 No automation file has the key "disk" (unless it is in a file with an error above)');
    expect(check(unclosed, [])).toEqual([
      `automations/disk.yaml:${lineOf(unclosed, 'value: "{{')}:20 YAML: The string quoted with " that starts here is never closed`,
    ]);
    const tab = GOOD.replace("    - id: s\n", "\t- id: s\n");
    const tabbed = check(tab, []);
    expect(tabbed).toHaveLength(1);
    expect(tabbed[0]).toMatch(
      new RegExp(
        `^automations/disk.yaml:${lineOf(tab, "\t- id: s")}:1 YAML: Tabs are not allowed as indentation \\(and \\d+ more YAML errors after it, often caused by this one\\)$`,
      ),
    );
    expect(check(`${LINE}---\n${LINE}`, [])).toEqual([
      "automations/disk.yaml:7:1 YAML: One resource per file: this file holds more than one YAML document (a --- line); put each in a file of its own",
    ]);
  });

  it("refuses more files of a kind than one apply takes (1,000), offline, instead of passing what the server then refuses", () => {
    const files = (n: number) =>
      Array.from({ length: n }, (_, i) => ({
        file: `automations/a${String(i).padStart(4, "0")}.yaml`,
        text: `kind: automation\nkey: a${i}\nname: A${i}\ngraph:\n  nodes:\n    - { id: t, name: t, key: core.manual }\n`,
      }));
    expect(validateFiles(files(MAX_BUNDLE_RESOURCES)).problems).toEqual([]);
    expect(validateFiles(files(MAX_BUNDLE_RESOURCES + 1)).problems.map((p) => `${p.file}:${p.line} ${p.message}`)).toEqual([
      `automations/a${MAX_BUNDLE_RESOURCES}.yaml:1 ${MAX_BUNDLE_RESOURCES + 1} automation files: one apply takes at most ${MAX_BUNDLE_RESOURCES}`,
    ]);
  });

  // `$steps` reference checks belong to the shared validator (being added to validate-automation.ts); once it
  // reports them, the as-code layer must place them on the line of the expression.
  const stepsChecked = validateDocument(
    {
      name: "x",
      graph: {
        nodes: [
          { id: "t", name: "t", key: "core.manual", config: {} },
          { id: "a", name: "a", key: "core.filter", config: { condition: "{{ $steps.nope.data }}" } },
        ],
        edges: [{ from: "t", to: "a" }],
      },
    },
    {},
  ).some((p) => /nope/.test(p.message));
  it.skipIf(!stepsChecked)("reports a $steps reference to an unknown node on its line", () => {
    const text = GOOD.replace("$steps.silence.data", "$steps.silense.data");
    expect(check(text).some((p) => p.startsWith(`automations/disk.yaml:${lineOf(text, "$steps.silense")}:`) && /silense/.test(p))).toBe(true);
  });

  it("checks references between files and duplicate keys", () => {
    const problems = validateFiles([
      { file: "automations/disk.yaml", text: GOOD },
      { file: "automations/copy.yaml", text: GOOD },
      { file: "lines/follow-up.yaml", text: LINE.replace("automation: disk", "automation: disc") },
      { file: "intakes/inbox.yaml", text: INTAKE.replace("line: follow-up", "line: followup") },
      { file: "other.yaml", text: "kind: dashboard\n" },
      { file: "kindless.yaml", text: "key: inbox\nname: Inbox\n" },
      { file: "graphless.yaml", text: "kind: automation\nkey: graphless\nname: No graph\n" },
    ]).problems.map((p) => `${p.file}:${p.line} ${p.message}`);
    expect(problems).toEqual(
      expect.arrayContaining([
        'automations/copy.yaml:2 Another automation file (automations/disk.yaml) has the key "disk"',
        // graphless.yaml is an automation file that could not be read: it might have been "disc".
        'lines/follow-up.yaml:6 No automation file has the key "disc" (unless it is in a file with an error above)',
        'intakes/inbox.yaml:4 No line file has the key "followup"',
        'other.yaml:1 kind must be automation, line or intake (found "dashboard")',
        "kindless.yaml:1 kind: Required (automation, line or intake)",
        "graphless.yaml:1 graph: Required",
      ]),
    );
  });

  it("ships a JSON Schema that editors can use: files pass, a secret value or an unknown component does not", () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
    const validate = ajv.compile(buildFilesJsonSchema());
    for (const text of [GOOD, LINE, INTAKE]) expect(validate(parse(text)), JSON.stringify(validate.errors)).toBe(true);
    expect(validate(parse(GOOD.replace("secret: { secret: disk-hook }", "secret: plain-secret-value")))).toBe(false);
    expect(validate(parse(GOOD.replace("key: metrics.getSilence", "key: metrics.nope")))).toBe(false);
    expect(validate(parse(GOOD.replace("duration: 1h", "duration: 5")))).toBe(false);
    expect(validate(parse(`apiVersion: conveyor/v1\n${GOOD}`)), JSON.stringify(validate.errors)).toBe(true);
    expect(validate(parse(`apiVersion: conveyor/v2\n${GOOD}`))).toBe(false);
  });

  it("reads the files' format first: a file from a newer Conveyor says so, instead of failing on the fields it added", () => {
    expect(check(`apiVersion: conveyor/v1\n${GOOD}`)).toEqual([]);
    expect(check(GOOD)).toEqual([]); // exported before the format was named: read as conveyor/v1
    // A newer file with a field this Conveyor does not know: one problem, about the version.
    expect(check(`apiVersion: conveyor/v2\n${GOOD.replace("name: Silence disk alerts", "name: Silence disk alerts\nowners: [sre]")}`, [])).toEqual([
      "automations/disk.yaml:1:13 This file is for a newer Conveyor (apiVersion conveyor/v2); this one reads conveyor/v1. Upgrade Conveyor, or export the files again from this one",
    ]);
    expect(check(`apiVersion: v1\n${GOOD}`, [])).toEqual(['automations/disk.yaml:1:13 apiVersion must be conveyor/v1 (found "v1")']);
  });
});

describe("docs/automations-as-code.md", () => {
  it("its worked example (automation, line, intake) is valid", async () => {
    const { readFileSync } = await import("node:fs");
    const md = readFileSync(new URL("../../docs/automations-as-code.md", import.meta.url), "utf8");
    const blocks = [...md.matchAll(/```yaml\n(\$schema: [\s\S]*?)```/g)].map((m, i) => ({ file: `example-${i}.yaml`, text: m[1]! }));
    expect(blocks.map((b) => parse(b.text).kind)).toEqual(["automation", "line", "intake"]);
    expect(validateFiles(blocks).problems).toEqual([]);
  });
});
