// @vitest-environment jsdom
/**
 * Form behaviour from issue #13: a new list row takes the focus, omitted booleans show their default,
 * values set to expressions elsewhere show as expressions, pickers keep and show labels, server
 * warnings sit under their field, and markdown docs render without raw HTML.
 */
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { EditorView } from "@codemirror/view";
import { afterEach, describe, expect, it, vi } from "vitest";
import { useState } from "react";
import { SchemaForm } from "./schema-form";
import { FormEnvProvider, type FormEnv } from "./form-context";
import { DocsMarkdown } from "./docs-tab";
import { bracketEdit } from "./template-brackets";
import type { JsonSchema } from "../types";

// Create Silence's config as the catalog serves it (z.toJSONSchema io: "input"), plus a Jira-like picker.
const schema: JsonSchema = {
  type: "object",
  properties: {
    matchers: {
      title: "Matchers",
      type: "array",
      expression: true,
      items: {
        type: "object",
        properties: {
          name: { type: "string", title: "Name", minLength: 1, expression: true },
          value: { type: "string", title: "Value", expression: true },
          isRegex: { type: "boolean", default: false, title: "Is Regex" },
          isEqual: { type: "boolean", default: true, title: "Is Equal" },
        },
        required: ["name", "value"],
      },
    },
    notify: { type: "boolean", default: true, title: "Notify" },
    issueType: { type: "string", title: "Issue Type", resource: { type: "issueType" } },
    // Filter's condition: any value, expressions allowed (z.unknown()).
    condition: { title: "Condition", description: "e.g. {{ $trigger.data.status = 'firing' }}", expression: true },
  },
  required: ["matchers"],
};

type Labels = NonNullable<FormEnv["labels"]>;

function Harness({ initial = {}, env = {}, initialLabels = {} }: { initial?: Record<string, unknown>; env?: Partial<FormEnv>; initialLabels?: Labels }) {
  const [value, setValue] = useState<Record<string, unknown>>(initial);
  const [labels, setLabels] = useState<Labels>(initialLabels);
  const pending: Record<string, { value: string; label: string } | null> = {};
  return (
    <QueryClientProvider client={new QueryClient()}>
      <FormEnvProvider
        value={{
          idPrefix: "t",
          config: value,
          problems: {},
          expressionPaths: [],
          sample: { steps: {} },
          labels,
          setLabel: (path, entry) => {
            pending[path] = entry;
          },
          ...env,
        }}
      >
        <SchemaForm
          schema={schema}
          value={value}
          onChange={(p) => {
            setLabels((l) => {
              const next = { ...l };
              for (const [k, v] of Object.entries(pending))
                if (v) next[k] = v;
                else delete next[k];
              return next;
            });
            setValue((v) => ({ ...v, ...p }));
          }}
        />
        <output data-testid="value">{JSON.stringify(value)}</output>
        <output data-testid="labels">{JSON.stringify(labels)}</output>
      </FormEnvProvider>
    </QueryClientProvider>
  );
}
const current = () => JSON.parse(screen.getByTestId("value").textContent!);

afterEach(cleanup);
// CodeMirror measures text ranges; jsdom has no layout.
const emptyRects = () => Object.assign([], { item: () => null }) as unknown as DOMRectList;
Range.prototype.getClientRects ??= emptyRects;
Range.prototype.getBoundingClientRect ??= () => new DOMRect();

describe("form behaviour", () => {
  it('"Add matcher" puts the cursor in the new row', () => {
    render(<Harness initial={{ matchers: [{ name: "alertname", value: "x" }] }} />);
    fireEvent.click(screen.getByRole("button", { name: /Add matcher/ }));
    expect(document.activeElement).toBe(screen.getByTestId("t-matchers-row-1").querySelector("#t-matchers_1_name"));
  });

  it("an omitted boolean shows its schema default (Is Equal on, Is Regex off) and stays omitted until changed", () => {
    render(<Harness initial={{ matchers: [{ name: "alertname", value: "x" }] }} />);
    const row = within(screen.getByTestId("t-matchers-row-0"));
    expect(row.getByRole("switch", { name: "Is Equal" }).getAttribute("aria-checked")).toBe("true");
    expect(row.getByRole("switch", { name: "Is Regex" }).getAttribute("aria-checked")).toBe("false");
    expect(screen.getByRole("switch", { name: "Notify" }).getAttribute("aria-checked")).toBe("true");
    expect(current().matchers[0]).toEqual({ name: "alertname", value: "x" });
    fireEvent.click(row.getByRole("switch", { name: "Is Equal" }));
    expect(current().matchers[0].isEqual).toBe(false);
    expect(row.getByRole("switch", { name: "Is Equal" }).getAttribute("aria-checked")).toBe("false");
  });

  it("values set to an expression through the API show as expressions, even where the form offers none", async () => {
    render(<Harness initial={{ matchers: "{{ $trigger.data.matchers }}", notify: "{{ $trigger.data.notify }}", issueType: "{{ $trigger.data.type }}" }} />);
    for (const path of ["matchers", "notify", "issueType"]) {
      const toggle = screen.getByTestId(`expr-toggle-${path}`);
      expect(toggle.getAttribute("aria-pressed")).toBe("true");
      expect(toggle.textContent).toBe("Fixed");
      expect(await within(screen.getByTestId(`field-${path}`)).findByTestId(/^expression-/)).toBeTruthy();
    }
    expect(screen.queryByRole("switch", { name: "Notify" })).toBeNull();
    expect(screen.queryByRole("button", { name: /Add matcher/ })).toBeNull();
    // Back to a fixed value: the expression is dropped and the usual control returns.
    fireEvent.click(screen.getByTestId("expr-toggle-notify"));
    expect("notify" in current()).toBe(false);
    expect(screen.getByRole("switch", { name: "Notify" }).getAttribute("aria-checked")).toBe("true");
  });

  it("the Expression toggle puts the caret inside the new {{ }}, with no error before anything is typed", async () => {
    render(<Harness />);
    fireEvent.click(screen.getByTestId("expr-toggle-matchers"));
    expect(current().matchers).toBe("{{  }}");
    const field = screen.getByTestId("field-matchers");
    await waitFor(() => expect(document.activeElement?.closest(".cm-editor")).toBeTruthy());
    const view = EditorView.findFromDOM(field.querySelector<HTMLElement>(".cm-editor")!)!;
    expect(view.state.selection.main.head).toBe(3);
    await new Promise((r) => setTimeout(r, 350)); // the preview's debounce
    expect(within(field).queryByTestId(/^preview-/)).toBeNull();
  });

  it("a field of any type that takes expressions starts as an expression, not a JSON box", async () => {
    render(<Harness />);
    const field = screen.getByTestId("field-condition");
    expect(await within(field).findByTestId(/^expression-/)).toBeTruthy();
    expect(field.querySelector("textarea")).toBeNull();
    expect(screen.getByTestId("expr-toggle-condition").getAttribute("aria-pressed")).toBe("true");
    expect("condition" in current()).toBe(false);
  });

  it("a picker stores the chosen option's label next to its value and shows it when reopened, without loading", async () => {
    const loadResources = vi.fn(async () => ({
      options: [
        { value: "10001", label: "Task" },
        { value: "10002", label: "Bug" },
      ],
    }));
    const first = render(<Harness env={{ loadResources }} />);
    fireEvent.click(screen.getByLabelText(/Issue Type/));
    fireEvent.click(await screen.findByRole("button", { name: "Bug" }));
    expect(current().issueType).toBe("10002");
    const labels = JSON.parse(screen.getByTestId("labels").textContent!);
    expect(labels).toEqual({ issueType: { value: "10002", label: "Bug" } });
    first.unmount();

    const reopenLoad = vi.fn(async () => ({ options: [] }));
    render(<Harness initial={{ issueType: "10002" }} initialLabels={labels} env={{ loadResources: reopenLoad }} />);
    expect(screen.getByLabelText(/Issue Type/).textContent).toBe("Bug");
    expect(reopenLoad).not.toHaveBeenCalled();
  });

  it("a stored label whose value changed elsewhere is not shown for the new value", () => {
    render(<Harness initial={{ issueType: "10003" }} initialLabels={{ issueType: { value: "10002", label: "Bug" } }} />);
    expect(screen.getByLabelText(/Issue Type/).textContent).toBe("10003");
  });

  it("server warnings show under their field without marking it invalid", () => {
    render(
      <Harness
        initial={{ matchers: [{ name: "a", value: "{{ $steps.s.data.silenceId }}" }] }}
        env={{ warnings: { "matchers.0.value": 's\'s output has no field "silenceId" in data. Did you mean "silenceID"?' } }}
      />,
    );
    const field = screen.getByTestId("field-matchers.0.value");
    expect(within(field).getByRole("status").textContent).toMatch(/Did you mean "silenceID"/);
    expect(within(field).queryByRole("alert")).toBeNull();
    expect(field.getAttribute("data-invalid")).toBeNull();
  });
});

describe("brackets in templates", () => {
  it("pairs brackets and quotes inside {{ }} only", () => {
    // Plain text: `[` is just `[`.
    expect(bracketEdit("Alert ", 6, 6, "[")).toBeNull();
    expect(bracketEdit("{{ $trigger }} [", 16, 16, "[")).toBeNull();
    // Inside an expression: paired, and a typed closer steps over the inserted one.
    expect(bracketEdit("{{ $count", 9, 9, "(")).toEqual({ insert: "()", cursor: 10 });
    expect(bracketEdit("{{ $count($x)", 12, 12, ")")).toEqual({ cursor: 13 });
    expect(bracketEdit("{{ a", 4, 4, '"')).toBeNull(); // after a word: a closing quote
    expect(bracketEdit("{{ ", 3, 3, '"')).toEqual({ insert: '""', cursor: 4 });
    // The second brace of `{{` opens an expression and is not paired.
    expect(bracketEdit("x {", 3, 3, "{")).toBeNull();
  });
});

describe("docs markdown", () => {
  it("renders markdown and drops raw HTML", () => {
    render(
      <DocsMarkdown
        source={"Ends after **Duration** (`1h`).\n\n- one\n- two\n\n<script>alert(1)</script>\n\nSee <b>bold html</b> and [site](https://example.com)."}
      />,
    );
    const docs = screen.getByTestId("unit-docs");
    expect(docs.querySelector("strong")?.textContent).toBe("Duration");
    expect(docs.querySelector("code")?.textContent).toBe("1h");
    expect(docs.querySelectorAll("li")).toHaveLength(2);
    expect(docs.querySelector("script")).toBeNull();
    expect(docs.querySelector("b")).toBeNull();
    expect(docs.querySelector("a")?.getAttribute("rel")).toMatch(/noreferrer/);
  });
});
