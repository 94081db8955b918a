/**
 * A bad expression is reported once, inline on its field: while typing, the live preview's error is
 * the field's error; after saving, the server's problem for the same field (which names the position)
 * takes its place instead of standing next to it.
 */
import { test, expect } from "../fixtures";
import { CanvasPage } from "../support/canvas-page";
import { createApp } from "../support/apps";

test("a bad expression shows one error on its field, the server's once saved", async ({ page, api, seed }) => {
  const ws = seed.workspaceId;
  const app = await createApp(api, ws, {
    name: "Bad expression",
    enabled: false,
    graph: {
      nodes: [
        { id: "n1", name: "start", key: "core.manual", config: {}, position: { x: 0, y: 0 } },
        { id: "n2", name: "gate", key: "core.filter", config: { condition: "{{ true }}" }, position: { x: 320, y: 0 } },
      ],
      edges: [{ from: "n1", to: "n2" }],
    },
  });
  const canvas = new CanvasPage(page);
  await canvas.goto(ws, app.id);
  await canvas.select("gate");

  const field = canvas.field("condition");
  await expect(field.getByTestId(/^preview-/)).toContainText("true");
  await field.locator(".cm-content").click();
  await page.keyboard.press("ControlOrMeta+a");
  // One insertion (a paste): typed, the editor would close the "(" itself.
  await page.keyboard.insertText("{{ (1 + }}");
  await expect(field.locator(".cm-content")).toHaveText("{{ (1 + }}");

  // Before saving: the preview's error, as the field's error (no second copy in a preview box).
  await expect(field.getByTestId("error-condition")).toHaveText(/^Expression: Expected "\)" before end of expression$/);
  await expect(field.getByTestId(/^preview-/)).toHaveCount(0);
  await expect(field.getByText(/before end of expression/)).toHaveCount(1);

  // Saved as a draft: the server's problem names the position, and it is the only one shown.
  await canvas.save();
  await expect(page.getByTestId("save-state")).toHaveText(/Saved · v2/);
  await expect(field.getByTestId("error-condition")).toHaveText(/Expression: syntax error: Expected "\)" before end of expression \(at position \d+\)/);
  await expect(field.getByText(/before end of expression/)).toHaveCount(1);
  await expect(field.getByTestId(/^preview-/)).toHaveCount(0);
});
