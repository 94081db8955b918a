// @vitest-environment jsdom
/**
 * The intakes page's signature settings: a new webhook intake requires timestamped signatures unless
 * unchecked, the created dialog says how to sign, and each webhook intake's row toggles the setting
 * (trigger intakes take it from their node).
 */
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, beforeEach, expect, it, vi } from "vitest";
import { IntakesPage } from "./intakes-page";

const intake = (over: Record<string, unknown>) => ({
  id: "int_w",
  kind: "webhook",
  name: "Inbox",
  nodeId: null,
  url: "http://conveyor.test/hooks/tok",
  status: "active",
  eventCount: 0,
  lastEventAt: null,
  signature: { requireTimestampedSignature: false, signatureToleranceSeconds: null },
  ...over,
});
let rows: ReturnType<typeof intake>[];
const created: Record<string, unknown>[] = [];
const updated: Record<string, unknown>[] = [];

vi.mock("@/components/providers/trpc-provider", () => ({
  useTRPC: () => ({
    intakes: {
      list: { queryOptions: () => ({ queryKey: ["intakes"], queryFn: async () => ({ data: rows }) }), queryKey: () => ["intakes"] },
      createWebhook: {
        mutationOptions: () => ({
          mutationFn: async (input: Record<string, unknown>) => {
            created.push(input);
            return { ...intake({ id: "int_new" }), url: "http://conveyor.test/hooks/new", secret: "shown-once" };
          },
        }),
      },
      updateSignature: {
        mutationOptions: () => ({
          mutationFn: async (input: { intakeId: string; requireTimestampedSignature: boolean }) => {
            updated.push(input);
            rows = rows.map((r) =>
              r.id === input.intakeId ? { ...r, signature: { ...r.signature!, requireTimestampedSignature: input.requireTimestampedSignature } } : r,
            );
          },
        }),
      },
      delete: { mutationOptions: () => ({ mutationFn: async () => undefined }) },
    },
    lines: { list: { queryOptions: () => ({ queryKey: ["lines"], queryFn: async () => ({ data: [{ id: "lin_1", name: "Follow-up" }] }) }) } },
  }),
}));

beforeEach(() => {
  // jsdom has no <dialog> methods.
  HTMLDialogElement.prototype.showModal ??= function (this: HTMLDialogElement) {
    this.setAttribute("open", "");
  };
  HTMLDialogElement.prototype.close ??= function (this: HTMLDialogElement) {
    this.removeAttribute("open");
  };
  created.length = 0;
  updated.length = 0;
  rows = [intake({}), intake({ id: "int_t", kind: "trigger", name: undefined, nodeId: "hook", signature: null })];
});
afterEach(cleanup);

const page = () =>
  render(
    <QueryClientProvider client={new QueryClient()}>
      <IntakesPage workspaceId="ws_1" />
    </QueryClientProvider>,
  );

it("creates webhook intakes requiring timestamped signatures unless unchecked, and says how to sign", async () => {
  page();
  fireEvent.click(screen.getByRole("button", { name: /New webhook intake/ }));
  const box = screen.getByRole("checkbox", { name: /Require timestamped signatures/ }) as HTMLInputElement;
  expect(box.checked).toBe(true);
  fireEvent.change(screen.getByLabelText("Name"), { target: { value: "Alerts" } });
  await waitFor(() => expect(screen.getByRole("option", { name: "Follow-up" })).toBeTruthy());
  fireEvent.change(screen.getByLabelText("Line"), { target: { value: "lin_1" } });
  fireEvent.click(screen.getByRole("button", { name: "Create" }));
  const how = await screen.findByLabelText("How to sign");
  expect(created).toEqual([{ workspaceId: "ws_1", name: "Alerts", lineId: "lin_1", requireTimestampedSignature: true }]);
  expect(how.textContent).toContain('-H "X-Conveyor-Signature: t=$t,v1=$sig"');
  expect(how.textContent).toContain("http://conveyor.test/hooks/new");
  expect(screen.getByText(/This intake accepts nothing else/)).toBeTruthy();
});

it("toggles the requirement on a webhook intake's row; a trigger's row has no toggle", async () => {
  page();
  const toggle = (await screen.findByRole("checkbox", { name: "Require timestamped signatures on Inbox" })) as HTMLInputElement;
  expect(toggle.checked).toBe(false);
  expect(screen.getAllByRole("checkbox")).toHaveLength(1);
  fireEvent.click(toggle);
  await waitFor(() => expect(updated).toEqual([{ workspaceId: "ws_1", intakeId: "int_w", requireTimestampedSignature: true }]));
  await waitFor(() => expect((screen.getByRole("checkbox", { name: "Require timestamped signatures on Inbox" }) as HTMLInputElement).checked).toBe(true));
});
