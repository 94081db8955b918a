/**
 * Save-time checks of `$steps` / `$trigger` references (pure `validateDocument`, the real metrics and
 * tracker integrations' output schemas): unknown steps with "did you mean", steps that do not run
 * before the field's node, triggers read through `$steps`, envelope and output fields.
 */
import { describe, expect, it } from "vitest";
import { validateDocument } from "./validate-automation";

const conn = { id: "con_m", integration: "metrics", config: {}, state: {} };
const connections = new Map([[conn.id, conn]]);

function silence(id: string, name: string, value: string, extra: Record<string, unknown> = {}) {
  return {
    id,
    name,
    key: "metrics.createSilence",
    connectionId: "con_m",
    config: { matchers: [{ name: "alertname", value }], duration: "1h", createdBy: "conveyor", comment: "auto", ...extra },
  };
}
const getSilence = (id: string, name: string, silenceRef: string) => ({
  id,
  name,
  key: "metrics.getSilence",
  connectionId: "con_m",
  config: { silence: silenceRef },
});
const onAlert = { id: "t", name: "onAlert", key: "metrics.onAlert", connectionId: "con_m", config: { statuses: ["firing"] } };

function problemsOf(nodes: unknown[], edges: Array<{ from: string; to: string }>) {
  return validateDocument({ name: "refs", graph: { nodes, edges } }, { connections });
}

describe("reference checks at save", () => {
  it("a valid chain has no problems", () => {
    const problems = problemsOf(
      [
        onAlert,
        silence("a", "createSilence", "{{ $trigger.data.labels.alertname }}"),
        getSilence("b", "readBack", "{{ $steps.createSilence.data.silenceID }}"),
      ],
      [
        { from: "t", to: "a" },
        { from: "a", to: "b" },
      ],
    );
    expect(problems).toEqual([]);
  });

  it("an unknown step is an error on the field, with the nearest name suggested", () => {
    const problems = problemsOf(
      [onAlert, silence("a", "createSilence", "x"), getSilence("b", "readBack", "{{ $steps.createSilenc.data.silenceID }}")],
      [
        { from: "t", to: "a" },
        { from: "a", to: "b" },
      ],
    );
    expect(problems).toEqual([
      { path: "graph.nodes.2.config.silence", nodeId: "b", severity: "error", message: 'No step is named "createSilenc". Did you mean $steps.createSilence?' },
    ]);
  });

  it("finds references anywhere JSONata can hold them (functions, conditions, mixed text, bracket form, $lookup)", () => {
    const problems = problemsOf(
      [
        onAlert,
        silence("a", "first", "x"),
        silence("b", "second", "{{ $count($steps.frist.data.matchers) > 0 ? 'yes' : 'no' }}", {
          comment: 'made by {{ $steps["frst"].data.createdBy }} and {{ $lookup($steps, "nope").data }}',
        }),
      ],
      [
        { from: "t", to: "a" },
        { from: "a", to: "b" },
      ],
    );
    expect(problems.map((p) => [p.path, p.message])).toEqual([
      ["graph.nodes.2.config.matchers.0.value", 'No step is named "frist". Did you mean $steps.first?'],
      ["graph.nodes.2.config.comment", 'No step is named "frst". Did you mean $steps.first?'],
      ["graph.nodes.2.config.comment", 'No step is named "nope".'],
    ]);
  });

  it("a step that does not run before the field's node can never have a value", () => {
    // onAlert → a, onAlert → b: siblings, and c reads itself.
    const problems = problemsOf(
      [
        onAlert,
        silence("a", "left", "x"),
        getSilence("b", "right", "{{ $steps.left.data.silenceID }}"),
        getSilence("c", "self", "{{ $steps.self.data.silenceID }}"),
      ],
      [
        { from: "t", to: "a" },
        { from: "t", to: "b" },
        { from: "t", to: "c" },
      ],
    );
    expect(problems.map((p) => [p.nodeId, p.severity, p.message])).toEqual([
      ["b", "error", '"left" does not run before "right", so $steps.left never has a value here. Connect left upstream of right.'],
      ["c", "error", "$steps.self is this step's own output, which does not exist yet while it runs."],
    ]);
  });

  it("reading the trigger through $steps is an error that says to use $trigger", () => {
    const problems = problemsOf([onAlert, silence("a", "s", "{{ $steps.onAlert.data.labels.alertname }}")], [{ from: "t", to: "a" }]);
    expect(problems[0]).toMatchObject({ nodeId: "a", severity: "error", message: '"onAlert" is the trigger: read its event as $trigger, not $steps.onAlert.' });
  });

  it("envelope parts other than type, timestamp and data are errors; a data field one level up is suggested", () => {
    const problems = problemsOf(
      [onAlert, silence("a", "s", "{{ $trigger.labels.alertname }}"), getSilence("b", "g", "{{ $steps.s.dta.silenceID }}")],
      [
        { from: "t", to: "a" },
        { from: "a", to: "b" },
      ],
    );
    expect(problems.map((p) => p.message)).toEqual([
      '$trigger has no "labels": an event has type, timestamp and data. Did you mean $trigger.data.labels?',
      '$steps.s has no "dta": an event has type, timestamp and data. Did you mean $steps.s.data?',
    ]);
  });

  it("an undeclared field of a declared output is a warning with a suggestion; maps and arrays are followed", () => {
    const problems = problemsOf(
      [
        onAlert,
        silence("a", "s", "{{ $trigger.data.labels.anything_goes }}", { comment: "{{ $trigger.data.annotatons.summary }}" }),
        getSilence("b", "g", "{{ $steps.s.data.silenceId }}"),
        getSilence("c", "h", "{{ $steps.s.data.matchers.name }} {{ $steps.s.data.matchers[0].isRegx }} {{ $steps.s.data.status.state }}"),
      ],
      [
        { from: "t", to: "a" },
        { from: "a", to: "b" },
        { from: "a", to: "c" },
      ],
    );
    expect(problems.map((p) => [p.nodeId, p.severity, p.message])).toEqual([
      ["a", "warning", 'The trigger onAlert\'s output has no field "annotatons" in data. Did you mean "annotations"?'],
      ["b", "warning", 's\'s output has no field "silenceId" in data. Did you mean "silenceID"?'],
      ["c", "warning", 's\'s output has no field "isRegx" in data.matchers. Did you mean "isRegex"?'],
      ["c", "warning", 'data.status of s is a string; it has no field "state".'],
    ]);
  });

  it("open objects (tracker issue fields) accept any field: custom fields are not flagged", () => {
    const tracker = { id: "con_t", integration: "tracker", config: {}, state: { cloudId: "c" } };
    const problems = validateDocument(
      {
        name: "jira",
        graph: {
          nodes: [
            { id: "t", name: "issue", key: "tracker.onIssue", connectionId: "con_t", config: { project: "OPS", events: ["created"] } },
            {
              id: "a",
              name: "s",
              key: "metrics.createSilence",
              connectionId: "con_m",
              config: {
                matchers: [{ name: "x", value: "{{ $trigger.data.issue.fields.customfield_10010 }}" }],
                duration: "1h",
                createdBy: "c",
                comment: "{{ $trigger.data.issue.key }}",
              },
            },
          ],
          edges: [{ from: "t", to: "a" }],
        },
      },
      {
        connections: new Map([
          [conn.id, conn],
          [tracker.id, tracker],
        ]),
      },
    );
    expect(problems.filter((p) => p.path.includes("config.matchers") || p.path.endsWith("comment"))).toEqual([]);
  });

  it("a step on only some of the paths into a node is a warning", () => {
    // t → a → c and t → b → c: c reads a, which is empty when the event came through b.
    const problems = problemsOf(
      [onAlert, silence("a", "a", "x"), silence("b", "b", "y"), getSilence("c", "c", "{{ $steps.a.data.silenceID }}")],
      [
        { from: "t", to: "a" },
        { from: "t", to: "b" },
        { from: "a", to: "c" },
        { from: "b", to: "c" },
      ],
    );
    expect(problems).toEqual([
      expect.objectContaining({ nodeId: "c", severity: "warning", message: expect.stringMatching(/"a" is on only some of the paths into "c"/) }),
    ]);
  });
});

describe("required config fields", () => {
  it(`a field left empty reads "Required", on its path; a wrong type keeps zod's message`, () => {
    const { comment: _comment, ...config } = silence("a", "createSilence", "x").config;
    const problems = problemsOf(
      [onAlert, { ...silence("a", "createSilence", "x"), config }, { id: "f", name: "filter", key: "core.filter", config: {} }],
      [
        { from: "t", to: "a" },
        { from: "a", to: "f" },
      ],
    );
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ nodeId: "a", path: "graph.nodes.1.config.comment", message: "Required" }),
        expect.objectContaining({ nodeId: "f", path: "graph.nodes.2.config.condition", message: "Required" }),
      ]),
    );
    const wrong = problemsOf([onAlert, silence("a", "createSilence", "x", { duration: 5 })], [{ from: "t", to: "a" }]);
    expect(wrong.find((p) => p.path.endsWith("duration"))?.message).toMatch(/expected string/);
  });
});
