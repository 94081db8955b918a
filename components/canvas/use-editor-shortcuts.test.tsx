// @vitest-environment jsdom
/**
 * Where the canvas's single-key shortcuts apply: on the canvas, not with focus in the node panel or the
 * palette (a letter typed on the panel's "Expression" toggle disabled the node, Backspace on one of its
 * switches deleted it), nor in an open dialog.
 */
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { useEditorShortcuts, type ShortcutHandlers } from "./use-editor-shortcuts";

const names = [
  "save",
  "undo",
  "redo",
  "copy",
  "paste",
  "duplicate",
  "remove",
  "selectAll",
  "help",
  "fit",
  "tidy",
  "escape",
  "disable",
  "connect",
  "menu",
] as const;

function Editor({ h }: { h: ShortcutHandlers }) {
  useEditorShortcuts(h);
  return (
    <div>
      <div data-testid="canvas">
        <div tabIndex={0} data-testid="node" />
      </div>
      <aside data-canvas-keys="local">
        <button type="button">Expression</button>
      </aside>
      <dialog data-testid="dialog">
        <button type="button">Connect</button>
      </dialog>
    </div>
  );
}

function setup() {
  const h = Object.fromEntries(names.map((n) => [n, vi.fn()])) as unknown as Record<(typeof names)[number], ReturnType<typeof vi.fn>>;
  render(<Editor h={h as unknown as ShortcutHandlers} />);
  return h;
}

afterEach(cleanup);

describe("canvas shortcuts", () => {
  it("act on the canvas", () => {
    const h = setup();
    const node = screen.getByTestId("node");
    fireEvent.keyDown(node, { key: "d" });
    fireEvent.keyDown(node, { key: "c" });
    fireEvent.keyDown(node, { key: "Backspace" });
    fireEvent.keyDown(node, { key: "c", ctrlKey: true });
    expect(h.disable).toHaveBeenCalledTimes(1);
    expect(h.connect).toHaveBeenCalledTimes(1);
    expect(h.remove).toHaveBeenCalledTimes(1);
    expect(h.copy).toHaveBeenCalledTimes(1);
  });

  it("leave the node panel's buttons alone, except save, undo and Esc", () => {
    const h = setup();
    const toggle = screen.getByRole("button", { name: "Expression" });
    for (const key of ["d", "c", "Backspace", "Delete", "1", "?"]) fireEvent.keyDown(toggle, { key });
    fireEvent.keyDown(toggle, { key: "c", ctrlKey: true });
    fireEvent.keyDown(toggle, { key: "a", ctrlKey: true });
    for (const n of ["disable", "connect", "remove", "fit", "help", "copy", "selectAll"] as const) expect(h[n], n).not.toHaveBeenCalled();
    fireEvent.keyDown(toggle, { key: "s", ctrlKey: true });
    fireEvent.keyDown(toggle, { key: "z", ctrlKey: true });
    fireEvent.keyDown(toggle, { key: "Escape" });
    expect(h.save).toHaveBeenCalledTimes(1);
    expect(h.undo).toHaveBeenCalledTimes(1);
    expect(h.escape).toHaveBeenCalledTimes(1);
  });

  it("stay off while a native dialog is open", () => {
    const h = setup();
    screen.getByTestId("dialog").setAttribute("open", "");
    fireEvent.keyDown(screen.getByRole("button", { name: "Connect" }), { key: "d" });
    fireEvent.keyDown(screen.getByTestId("node"), { key: "Delete" });
    expect(h.disable).not.toHaveBeenCalled();
    expect(h.remove).not.toHaveBeenCalled();
  });
});
