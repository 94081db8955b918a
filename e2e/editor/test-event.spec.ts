/**
 * Trigger panel "listen for a test event": the next delivery to the trigger's URL shows up in the panel
 * and its fields are offered by the expression autocomplete of downstream nodes.
 */
import { test, expect } from "../fixtures";
import { CanvasPage } from "../support/canvas-page";
import { createApp } from "../support/apps";

test("a test event feeds the expression autocomplete", async ({ page, api, seed }) => {
  const ws = seed.workspaceId;
  const app = await createApp(api, ws, {
    name: "Webhook to filter",
    enabled: true,
    graph: {
      nodes: [
        { id: "n1", name: "hook", key: "core.webhook", config: {}, position: { x: 0, y: 0 } },
        { id: "n2", name: "onlyGold", key: "core.filter", config: { condition: "{{ true }}" }, position: { x: 320, y: 0 } },
      ],
      edges: [{ from: "n1", to: "n2" }],
    },
  });
  const canvas = new CanvasPage(page);
  await canvas.goto(ws, app.id);
  await canvas.select("hook");
  await page.getByTestId("panel-tab-trigger").click();
  const url = await page.getByTestId("trigger-url").inputValue();
  await page.getByTestId("listen-toggle").click();
  await expect(page.getByText("Waiting for the next delivery")).toBeVisible();

  const delivered = await page.request.post(url, { data: { customer: { tier: "gold", name: "Acme" } } });
  expect(delivered.status()).toBeLessThan(300);
  await expect(page.getByText("Waiting for the next delivery")).toBeHidden({ timeout: 15_000 });
  await expect(page.getByText(/Test event received/)).toBeVisible();

  await canvas.select("onlyGold");
  // The option carries the value seen in the test event.
  await canvas.field("condition").locator(".cm-content").click();
  await page.keyboard.type("{{ $trigger.data.body.cu");
  await expect(page.locator(".cm-tooltip-autocomplete li", { hasText: "$trigger.data.body.customer.tier" })).toContainText('"gold"');
  await canvas.completeExpression("condition", "$trigger.data.body.cu", "$trigger.data.body.customer.tier", ' = "gold" }}');
  await expect(canvas.field("condition").getByTestId(/^preview-/)).toContainText("true");
});
