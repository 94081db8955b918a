// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { useCanvasStore } from "@/components/canvas/canvas-store";
import { ManagedInGitBanner } from "./managed-in-git-banner";

const source = {
  repository: "https://git.example.test/ops/automations",
  path: "automations/silence-disk.yaml",
  commit: "0123456789abcdef",
  appliedAt: "2026-11-24T10:00:00.000Z",
  appliedBy: "api-key:ci",
  appliedVersion: 3,
};
const graph = { nodes: [{ id: "t", name: "start", key: "core.manual", config: {}, position: { x: 0, y: 0 } }], edges: [] };
const store = () => useCanvasStore.getState();

beforeEach(() => {
  // jsdom has no <dialog> methods.
  HTMLDialogElement.prototype.showModal ??= function (this: HTMLDialogElement) {
    this.setAttribute("open", "");
  };
  // Like browsers, closing fires "close" (the Dialog calls onClose then).
  HTMLDialogElement.prototype.close = function (this: HTMLDialogElement) {
    this.removeAttribute("open");
    this.dispatchEvent(new Event("close"));
  };
  sessionStorage.clear();
  store().load(structuredClone(graph), () => "trigger");
});
afterEach(cleanup);

describe("ManagedInGitBanner", () => {
  it("says where the automation is managed, and nothing for one that is not", () => {
    const { rerender } = render(<ManagedInGitBanner automationId="aut_1" source={source} version={3} />);
    expect(screen.getByTestId("managed-in-git").textContent).toContain("Managed in Git (automations/silence-disk.yaml@0123456789ab)");
    expect(screen.queryByText(/Changed here since that apply/)).toBeNull();
    rerender(<ManagedInGitBanner automationId="aut_1" source={source} version={5} />);
    expect(screen.getByText(/Changed here since that apply \(version 3 → 5\)/)).toBeTruthy();
    rerender(<ManagedInGitBanner automationId="aut_1" source={null} version={5} />);
    expect(screen.queryByTestId("managed-in-git")).toBeNull();
  });

  it("asks at the first edit: undo puts the canvas back, 'edit anyway' is not asked again", () => {
    render(<ManagedInGitBanner automationId="aut_1" source={source} version={3} />);
    expect(screen.queryByText("Undo my change")).toBeNull();
    act(() => void store().addNode({ key: "core.filter", kind: "component", baseName: "gate", position: { x: 200, y: 0 } }));
    fireEvent.click(screen.getByText("Undo my change"));
    expect(store().nodes).toHaveLength(1);
    expect(store().dirty).toBe(false);
    expect(screen.queryByText("Undo my change")).toBeNull();
    act(() => void store().addNode({ key: "core.filter", kind: "component", baseName: "gate", position: { x: 200, y: 0 } }));
    fireEvent.click(screen.getByText("Edit here anyway"));
    act(() => void store().addNode({ key: "core.filter", kind: "component", baseName: "gate", position: { x: 400, y: 0 } }));
    expect(store().nodes).toHaveLength(3);
    expect(screen.queryByText("Undo my change")).toBeNull();
  });

  it("does not ask a reader who cannot edit", () => {
    render(<ManagedInGitBanner automationId="aut_2" source={source} version={3} readOnly />);
    act(() => void store().addNode({ key: "core.filter", kind: "component", baseName: "gate", position: { x: 200, y: 0 } }));
    expect(screen.queryByText("Undo my change")).toBeNull();
  });
});
