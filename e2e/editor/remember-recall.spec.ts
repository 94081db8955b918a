/**
 * Remember in one automation, recall in another (workspace scope), configured in the editor's generated
 * forms: Recall's "When nothing is remembered" choices by name, "Wait up to" shown only for waiting, and
 * "Forget it after reading". Both run by hand from the editor; the run view shows the value recalled,
 * and a second recall finds nothing (it was forgotten) and ends its branch without a failure.
 */
import { test, expect } from "../fixtures";
import { createApp } from "../support/apps";
import { CanvasPage } from "../support/canvas-page";

test("remember in one automation, recall and forget in another", async ({ page, api, seed }) => {
  const ws = seed.workspaceId;
  const key = `deploy-${Date.now()}`;
  const writer = await createApp(api, ws, {
    name: "Remember the deploy ticket",
    enabled: true,
    graph: {
      nodes: [
        { id: "n1", name: "start", key: "core.manual", config: {}, position: { x: 0, y: 0 } },
        {
          id: "n2",
          name: "remember",
          key: "core.remember",
          config: { key, value: "{{ $trigger.data.ticket }}", scope: "workspace", keepFor: "1d" },
          position: { x: 320, y: 0 },
        },
      ],
      edges: [{ from: "n1", to: "n2" }],
    },
  });
  const reader = await createApp(api, ws, {
    name: "Recall the deploy ticket",
    enabled: true,
    graph: {
      nodes: [
        { id: "n1", name: "start", key: "core.manual", config: {}, position: { x: 0, y: 0 } },
        { id: "n2", name: "ticket", key: "core.recall", config: { key }, position: { x: 320, y: 0 } },
      ],
      edges: [{ from: "n1", to: "n2" }],
    },
  });

  const canvas = new CanvasPage(page);
  const runByHand = async (data: string) => {
    await page.getByTestId("run-now").click();
    await page.getByLabel("Event data (JSON)").fill(data);
    await page.getByTestId("start-run").click();
    await expect(page).toHaveURL(/\/runs\/run_/);
    await expect(page.getByTestId("run-status").first()).toHaveAttribute("data-status", /succeeded|failed/, { timeout: 30_000 });
  };

  // The writer: run it by hand with the ticket in the event.
  await canvas.goto(ws, writer.id);
  await runByHand('{ "ticket": "OPS-7" }');
  await expect(page.getByTestId("run-status").first()).toHaveAttribute("data-status", "succeeded");
  await page.locator('.react-flow__node:has([data-node-name="remember"])').click();
  await expect(page.getByTestId("step-remember").getByTestId("step-output")).toContainText('"scope": "workspace"');

  // The reader's form: the choices by name; Wait up to only when waiting.
  await canvas.goto(ws, reader.id);
  await canvas.select("ticket");
  const ifMissing = canvas.field("ifMissing").getByRole("combobox");
  await expect(ifMissing.locator("option")).toContainText([
    "End this branch (not a failure)",
    "Wait for it, then end the branch",
    "Fail the step",
    "Go on with found = false",
  ]);
  await expect(canvas.field("waitUpTo")).toHaveCount(0);
  await ifMissing.selectOption({ label: "Wait for it, then end the branch" });
  await expect(canvas.field("waitUpTo")).toBeVisible();
  await ifMissing.selectOption({ label: "End this branch (not a failure)" });
  await canvas.field("scope").getByRole("combobox").selectOption({ label: "The whole workspace" });
  await canvas.field("forget").getByRole("switch").click();
  await canvas.save();
  await expect(page.getByTestId("save-state")).toHaveText(/Saved · v2/);

  // First recall: the value the other automation remembered, with who stored it.
  await runByHand("{}");
  await expect(page.getByTestId("run-status").first()).toHaveAttribute("data-status", "succeeded");
  await page.locator('.react-flow__node:has([data-node-name="ticket"])').click();
  const output = page.getByTestId("step-ticket").getByTestId("step-output");
  await expect(output).toContainText('"found": true');
  await expect(output).toContainText('"value": "OPS-7"');
  await expect(output).toContainText(writer.id);

  // Second recall: forgotten, so the branch ends (the step is not a failure).
  await canvas.goto(ws, reader.id);
  await runByHand("{}");
  await expect(page.getByTestId("run-status").first()).toHaveAttribute("data-status", "succeeded");
  await expect(page.locator('[data-node-name="ticket"] [data-testid="node-run-status"]')).not.toHaveAttribute("data-status", "failed");
  await page.locator('.react-flow__node:has([data-node-name="ticket"])').click();
  await expect(page.getByTestId("step-panel")).toContainText(`nothing is remembered under "${key}"`);
});
