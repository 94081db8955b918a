// @vitest-environment jsdom
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { act, cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { useState } from "react";
import { webhookTrigger } from "@/integrations/builtin/webhook";
import { toJsonSchema } from "@/integrations/core/catalog";
import { SchemaForm } from "./schema-form";
import { singular } from "./fields/list-field";
import { FormEnvProvider, type FormEnv } from "./form-context";
import type { JsonSchema } from "../types";

// Shape produced by z.toJSONSchema(..., { io: "input" }) for a createSilence-like config.
const schema: JsonSchema = {
  type: "object",
  properties: {
    matchers: {
      title: "Matchers",
      type: "array",
      minItems: 1,
      items: {
        type: "object",
        properties: {
          name: { type: "string", title: "Name", minLength: 1 },
          value: { type: "string", title: "Value", expression: true },
          isRegex: { type: "boolean", default: false, title: "Is Regex" },
        },
        required: ["name", "value"],
      },
    },
    duration: { type: "string", title: "Duration", widget: "duration" },
    state: { type: "string", enum: ["any", "firing"], default: "any", title: "State" },
    selector: {
      anyOf: [
        { type: "string", const: "latest" },
        { type: "string", const: "specific" },
      ],
      title: "Approval Selector",
    },
    approval: { type: "string", title: "Approval", visibleWhen: { field: "selector", equals: "specific" } },
    description: { type: "string", title: "Description", togglable: true },
    password: { type: "string", title: "Password", sensitive: true },
    project: { type: "string", title: "Project", resource: { type: "project" } },
    issueType: { type: "string", title: "Issue Type", resource: { type: "issueType", dependsOn: ["project"] } },
  },
  required: ["matchers", "duration", "selector"],
};

function Harness({ initial = {}, env = {}, form = schema }: { initial?: Record<string, unknown>; env?: Partial<FormEnv>; form?: JsonSchema }) {
  const [value, setValue] = useState<Record<string, unknown>>(initial);
  return (
    <QueryClientProvider client={new QueryClient()}>
      <FormEnvProvider value={{ idPrefix: "t", config: value, problems: {}, expressionPaths: [], sample: { steps: {} }, ...env }}>
        <SchemaForm schema={form} value={value} onChange={(p) => setValue((v) => ({ ...v, ...p }))} />
        <output data-testid="value">{JSON.stringify(value)}</output>
      </FormEnvProvider>
    </QueryClientProvider>
  );
}
const current = () => JSON.parse(screen.getByTestId("value").textContent!);

afterEach(cleanup);

describe("SchemaForm", () => {
  it("labels every control and marks required fields", () => {
    render(<Harness />);
    expect(screen.getByLabelText(/Duration/)).toBeTruthy();
    expect(screen.getByLabelText(/^State/)).toBeTruthy();
    expect(screen.getByLabelText(/Password/).getAttribute("type")).toBe("password");
    expect(screen.getByTestId("field-duration").textContent).toContain("(required)");
    expect(screen.getByTestId("field-password").textContent).not.toContain("(required)");
  });

  it("adds, edits, reorders and removes list rows", () => {
    render(<Harness />);
    const add = screen.getByRole("button", { name: /Add matcher/ });
    fireEvent.click(add);
    fireEvent.click(add);
    fireEvent.change(screen.getByLabelText(/^Name/, { selector: "#t-matchers_0_name" }), { target: { value: "alertname" } });
    fireEvent.change(screen.getByLabelText(/^Name/, { selector: "#t-matchers_1_name" }), { target: { value: "severity" } });
    expect(current().matchers.map((m: { name: string }) => m.name)).toEqual(["alertname", "severity"]);
    expect(current().matchers[0].isRegex).toBe(false);
    // Rows are named after one item ("Matcher 2", not "Matchers 2").
    expect(screen.getByTestId("t-matchers-row-1").textContent).toContain("Matcher 2");
    expect(["Matchers", "Alert Names", "Statuses", "Responders", "Properties", "Address"].map(singular)).toEqual([
      "Matcher",
      "Alert Name",
      "Status",
      "Responder",
      "Property",
      "Address",
    ]);
    fireEvent.click(screen.getByRole("button", { name: "Move Matcher 2 up" }));
    expect(current().matchers.map((m: { name: string }) => m.name)).toEqual(["severity", "alertname"]);
    fireEvent.click(screen.getByRole("button", { name: "Remove Matcher 1" }));
    expect(current().matchers.map((m: { name: string }) => m.name)).toEqual(["alertname"]);
  });

  it("validates inline as the user types and shows server problems on the exact field", () => {
    render(<Harness env={{ problems: { "matchers.0.value": "Value is required" } }} initial={{ matchers: [{ name: "a", value: "" }] }} />);
    expect(within(screen.getByTestId("field-matchers.0.value")).getByRole("alert").textContent).toBe("Value is required");
    expect(screen.getByTestId("field-matchers.0.name").querySelector("[role=alert]")).toBeNull();
    const duration = screen.getByLabelText(/Duration/);
    fireEvent.change(duration, { target: { value: "soon" } });
    expect(within(screen.getByTestId("field-duration")).getByRole("alert").textContent).toMatch(/duration like/);
    expect(duration.getAttribute("aria-invalid")).toBe("true");
    fireEvent.change(duration, { target: { value: "2h30m" } });
    expect(screen.getByTestId("field-duration").querySelector("[role=alert]")).toBeNull();
  });

  it("shows a field only when another field has the given value, and togglable sections omit their key", () => {
    render(<Harness />);
    expect(screen.queryByTestId("field-approval")).toBeNull();
    fireEvent.change(screen.getByLabelText(/Approval Selector/), { target: { value: "specific" } });
    expect(screen.getByTestId("field-approval")).toBeTruthy();
    expect(screen.queryByLabelText(/^Description/)).toBeNull();
    fireEvent.click(screen.getByRole("switch", { name: "Enable Description" }));
    fireEvent.change(screen.getByLabelText(/^Description/), { target: { value: "hello" } });
    expect(current().description).toBe("hello");
    fireEvent.click(screen.getByRole("switch", { name: "Enable Description" }));
    expect("description" in current()).toBe(false);
  });

  it("the Webhook trigger asks for its secret with bearer and with HMAC (which saved as a problem with nowhere to type the secret)", () => {
    render(<Harness form={toJsonSchema(webhookTrigger.config) as JsonSchema} />);
    const auth = screen.getByLabelText(/^Authentication/);
    expect(screen.queryByLabelText(/^Secret/)).toBeNull();
    expect(screen.queryByLabelText(/^Signature header/)).toBeNull();
    fireEvent.change(auth, { target: { value: "bearer" } });
    expect(screen.getByLabelText(/^Secret/)).toBeTruthy();
    expect(screen.queryByLabelText(/^Signature header/)).toBeNull();
    fireEvent.change(auth, { target: { value: "hmac" } });
    fireEvent.change(screen.getByLabelText(/^Secret/), { target: { value: "a-long-shared-secret" } });
    expect(screen.getByLabelText(/^Signature header/)).toBeTruthy();
    expect(current()).toMatchObject({ authentication: "hmac", secret: "a-long-shared-secret" });
  });

  it("loads resource options from the connection, and dependent pickers wait for their parent", async () => {
    const loadResources = vi.fn(async ({ type, config }: { type: string; config: Record<string, unknown> }) => ({
      options: type === "project" ? [{ value: "OPS", label: "Operations" }] : [{ value: `bug-${config.project}`, label: `Bug in ${config.project}` }],
    }));
    render(<Harness env={{ loadResources }} />);
    expect(screen.getByTestId("field-issueType").textContent).toMatch(/Choose project first/);
    fireEvent.click(screen.getByLabelText(/^Project/));
    const option = await screen.findByRole("button", { name: "Operations" });
    fireEvent.click(option);
    expect(current().project).toBe("OPS");
    fireEvent.click(screen.getByLabelText(/Issue Type/));
    fireEvent.click(await screen.findByRole("button", { name: "Bug in OPS" }));
    expect(current().issueType).toBe("bug-OPS");
    expect(loadResources).toHaveBeenCalledWith(expect.objectContaining({ type: "issueType" }));
  });

  it("shows a chosen resource value by its option's label when the form opens (a name, not the stored id)", async () => {
    const loadResources = vi.fn(async () => ({ options: [{ value: "85f14c10-5bd7-4e98-aee5-511ce1f80086", label: "Red Team" }] }));
    render(<Harness initial={{ project: "85f14c10-5bd7-4e98-aee5-511ce1f80086" }} env={{ loadResources }} />);
    expect(await screen.findByText("Red Team")).toBeTruthy();
    expect(screen.getByLabelText(/^Project/).textContent).toBe("Red Team");
    expect(loadResources).toHaveBeenCalledWith(expect.objectContaining({ type: "project" }));
  });

  it("renders a discriminated union as a choice plus the chosen variant's fields", () => {
    const auth: JsonSchema = {
      type: "object",
      properties: {
        apiAuth: {
          title: "API Auth",
          default: { type: "none" },
          enumLabels: { none: "None", basic: "Basic" },
          oneOf: [
            { type: "object", properties: { type: { type: "string", const: "none" } }, required: ["type"] },
            {
              type: "object",
              properties: {
                type: { type: "string", const: "basic" },
                username: { type: "string", title: "Username" },
                password: { type: "string", title: "Password", sensitive: true },
              },
              required: ["type", "username", "password"],
            },
          ],
        },
      },
    };
    function AuthHarness() {
      const [value, setValue] = useState<Record<string, unknown>>({});
      return (
        <FormEnvProvider value={{ idPrefix: "a", config: value, problems: {}, expressionPaths: [] }}>
          <SchemaForm schema={auth} value={value} onChange={(p) => setValue((v) => ({ ...v, ...p }))} />
          <output data-testid="value">{JSON.stringify(value)}</output>
        </FormEnvProvider>
      );
    }
    render(<AuthHarness />);
    expect(screen.queryByLabelText(/Username/)).toBeNull();
    fireEvent.change(screen.getByRole("combobox"), { target: { value: "basic" } });
    fireEvent.change(screen.getByLabelText(/Username/), { target: { value: "ops" } });
    fireEvent.change(screen.getByLabelText(/Password/), { target: { value: "pw" } });
    expect(screen.getByLabelText(/Password/).getAttribute("type")).toBe("password");
    expect(current().apiAuth).toEqual({ type: "basic", username: "ops", password: "pw" });
  });

  it("switches an expression-capable field to expression mode", async () => {
    render(<Harness initial={{ matchers: [{ name: "a", value: "x" }] }} />);
    await act(async () => {
      fireEvent.click(screen.getByTestId("expr-toggle-matchers.0.value"));
    });
    expect(screen.getByTestId("expr-toggle-matchers.0.value").getAttribute("aria-pressed")).toBe("true");
    expect(current().matchers[0].value).toBe("x");
  });
});
