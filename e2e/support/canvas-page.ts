/** Page object for the canvas editor: real pointer drags from the palette and between handles. */
import { expect, type Locator, type Page } from "@playwright/test";

export class CanvasPage {
  constructor(readonly page: Page) {}

  get canvas(): Locator {
    return this.page.getByTestId("canvas");
  }
  node(key: string): Locator {
    return this.page.locator(`.react-flow__node [data-node-key="${key}"]`);
  }
  nodeByName(name: string): Locator {
    return this.page.locator(`.react-flow__node [data-node-name="${name}"]`);
  }
  panel(): Locator {
    return this.page.getByTestId("config-panel");
  }
  field(path: string): Locator {
    return this.panel().getByTestId(`field-${path}`);
  }

  /** Creates an automation from the automations list and waits for its editor; returns its id. */
  async create(workspaceId: string, name: string): Promise<string> {
    await this.page.goto(`/w/${workspaceId}/automations`);
    await this.page.getByTestId("new-automation").click();
    await this.page.locator("#new-automation-name").fill(name);
    await this.page.getByTestId("create-automation").click();
    await expect(this.page).toHaveURL(/\/automations\/aut_/);
    await expect(this.canvas).toBeVisible();
    return /\/automations\/(aut_[a-z0-9]+)/.exec(this.page.url())![1]!;
  }

  /**
   * Switches a field to expression mode, types `{{ <typed>`, picks `option` from the autocomplete
   * and closes the braces; asserts the editor then holds `{{ <option> }}`. Returns the editor.
   */
  async pickExpression(path: string, typed: string, option: string): Promise<Locator> {
    await this.page.getByTestId(`expr-toggle-${path}`).click();
    return this.completeExpression(path, typed, option);
  }

  /** In a field already in expression mode: types `{{ <typed>`, picks `option`, closes the braces. */
  async completeExpression(path: string, typed: string, option: string, after = " }}"): Promise<Locator> {
    const editor = this.field(path).locator(".cm-content");
    const item = this.page.locator(".cm-tooltip-autocomplete li", { hasText: option });
    // A click that lands while the list is being redrawn (its options re-filtered or the editor
    // reconfigured with new paths) is dropped by CodeMirror; start over from an empty field then.
    await expect(async () => {
      await editor.click();
      await this.page.keyboard.press("ControlOrMeta+a");
      await this.page.keyboard.type(`{{ ${typed}`);
      await expect(item).toBeVisible({ timeout: 5_000 });
      await item.click({ timeout: 5_000 });
      await expect(editor).toHaveText(`{{ ${option}`, { timeout: 2_000 });
    }).toPass({ timeout: 30_000 });
    await this.page.keyboard.type(after);
    await expect(editor).toHaveText(`{{ ${option}${after}`);
    return editor;
  }

  async goto(workspaceId: string, automationId: string) {
    await this.page.goto(`/w/${workspaceId}/automations/${automationId}`);
    await expect(this.canvas).toBeVisible();
    await expect(this.page.locator(".react-flow__renderer")).toBeVisible();
  }

  /** Drags a palette item onto the canvas at (x, y) relative to the canvas box, with real mouse events. */
  async dragFromPalette(key: string, at: { x: number; y: number }) {
    // Close the node panel first so the whole canvas is a drop target.
    await this.deselect();
    const item = this.page.getByTestId(`palette-item-${key}`);
    await item.scrollIntoViewIfNeeded();
    const box = (await this.canvas.boundingBox())!;
    await item.dragTo(this.canvas, { targetPosition: at });
    await expect(this.node(key).first()).toBeVisible();
    return box;
  }

  /** Fits the view and waits until the viewport has settled: it moved and two reads 60 ms apart agree (or it had nothing to move). */
  async fit() {
    const started = Date.now();
    const viewport = this.page.locator(".react-flow__viewport");
    const before = await viewport.getAttribute("style");
    await this.page.locator(".react-flow__controls-fitview").click();
    let last = before;
    let moved = false;
    await expect
      .poll(
        async () => {
          const now = await viewport.getAttribute("style");
          const settled = now === last && (moved || now !== before || Date.now() - started > 400);
          if (now !== before) moved = true;
          last = now;
          return settled;
        },
        { intervals: [60], timeout: 5000 },
      )
      .toBe(true);
  }

  /** Connects the source handle of `from` to the target handle of `to` by dragging with the mouse. */
  async connect(fromName: string, toName: string) {
    await this.deselect();
    await this.fit();
    const source = this.page.locator(`.react-flow__node:has([data-node-name="${fromName}"]) .react-flow__handle.source`);
    const target = this.page.locator(`.react-flow__node:has([data-node-name="${toName}"]) .react-flow__handle.target`);
    const a = (await source.boundingBox())!;
    const b = (await target.boundingBox())!;
    await this.page.mouse.move(a.x + a.width / 2, a.y + a.height / 2);
    await this.page.mouse.down();
    await this.page.mouse.move((a.x + b.x) / 2, (a.y + b.y) / 2 + 20, { steps: 8 });
    await this.page.mouse.move(b.x + b.width / 2, b.y + b.height / 2, { steps: 8 });
    await this.page.mouse.up();
  }

  async deselect() {
    if (await this.panel().isVisible()) {
      await this.panel().getByRole("button", { name: "Close panel" }).click();
      await expect(this.panel()).toBeHidden();
    }
  }

  async select(name: string) {
    await this.deselect();
    await this.fit();
    await this.nodeByName(name).click();
    await expect(this.panel()).toBeVisible();
  }

  async save() {
    await this.page.keyboard.press("ControlOrMeta+s");
  }

  edges(): Locator {
    return this.page.locator(".react-flow__edge");
  }

  /** React Flow's focusable wrapper of the node called `name` (where its accessible name and keyboard live). */
  wrapper(name: string): Locator {
    return this.page.locator(`.react-flow__node:has([data-node-name="${name}"])`);
  }

  /** Adds a node by pressing its palette item (click-to-add); returns the new node's name. */
  async clickPalette(key: string): Promise<string> {
    const before = await this.page.locator(".react-flow__node [data-node-name]").evaluateAll((els) => els.map((e) => e.getAttribute("data-node-name")));
    await this.page.getByTestId(`palette-item-${key}`).click();
    await expect(this.page.locator(".react-flow__node [data-node-name]")).toHaveCount(before.length + 1);
    const after = await this.page.locator(".react-flow__node [data-node-name]").evaluateAll((els) => els.map((e) => e.getAttribute("data-node-name")));
    return after.find((n) => !before.includes(n))!;
  }

  /** Whether an edge runs from node `from` to node `to` (by names; edges are named after their nodes). */
  async hasEdge(from: string, to: string): Promise<boolean> {
    return (await this.page.getByRole("group", { name: `Connection from ${from} to ${to}`, exact: true }).count()) === 1;
  }

  /** Right-clicks the node called `name` and returns the open menu. */
  async nodeMenu(name: string): Promise<Locator> {
    await this.wrapper(name).click({ button: "right" });
    const menu = this.page.getByTestId("context-menu");
    await expect(menu).toBeVisible();
    return menu;
  }
}
