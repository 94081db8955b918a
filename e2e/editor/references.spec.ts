/**
 * Issue #13 "Building", in the browser: an expression naming a step that does not exist
 * (`$steps.createSilenc…`) is flagged on its field at save with a "did you mean"; the automation is
 * kept as a draft (badge, toolbar list, still there after reopening) and cannot be enabled until it
 * is fixed. Along the way: the only connection is preselected, "Add matcher" focuses the new row,
 * an omitted Is Equal shows on, and deleting a node marks the fields that read it at once.
 */
import { test, expect } from "../fixtures";
import { CanvasPage } from "../support/canvas-page";

test("an unknown $steps reference is flagged at save, kept as a draft, and blocks enabling until fixed", async ({ page, api }) => {
  test.setTimeout(120_000);
  // A workspace of its own with exactly one metrics connection (never called: nothing listens on port 9).
  const ws = (await (await api.post("/api/v1/factories", { data: { name: `refs ${Date.now().toString(36)}` } })).json()).id as string;
  const con = await api.post(`/api/v1/factories/${ws}/connections`, {
    data: { integration: "metrics", name: "only prometheus", config: { metricsBaseUrl: "http://127.0.0.1:9", apiAuth: { type: "none" } } },
  });
  expect(con.status()).toBe(201);

  const canvas = new CanvasPage(page);
  await canvas.create(ws, "Silence and read it back");
  const connection = () => canvas.panel().getByTestId("node-connection-select").locator("option:checked");

  // onAlert: the only metrics connection is already chosen.
  await canvas.dragFromPalette("metrics.onAlert", { x: 150, y: 220 });
  await expect(connection()).toHaveText("only prometheus");
  await expect(canvas.field("statuses").getByRole("button", { name: "Firing" })).toHaveAttribute("aria-pressed", "true"); // prefilled

  // createSilence: "Add matcher" puts the cursor in the new row; Is Equal (default true) shows on.
  await canvas.dragFromPalette("metrics.createSilence", { x: 450, y: 220 });
  await expect(connection()).toHaveText("only prometheus");
  await canvas.dragFromPalette("metrics.getSilence", { x: 750, y: 220 });
  await expect(connection()).toHaveText("only prometheus");
  await canvas.connect("onAlert", "createSilence");
  await canvas.connect("createSilence", "getSilence");
  await expect(canvas.edges()).toHaveCount(2);
  await canvas.select("createSilence");
  await canvas
    .field("matchers")
    .getByRole("button", { name: /Add matcher/ })
    .click();
  await expect(canvas.field("matchers.0.name").getByRole("textbox")).toBeFocused();
  await page.keyboard.type("alertname");
  await expect(canvas.field("matchers.0.isEqual").getByRole("switch")).toHaveAttribute("aria-checked", "true");
  await canvas.pickExpression("matchers.0.value", "$trigger.data.lab", "$trigger.data.labels.alertname");
  await canvas.field("duration").getByRole("textbox").fill("1h");
  await canvas.field("createdBy").getByRole("textbox").fill("conveyor");
  await canvas.field("comment").getByRole("textbox").fill("auto-silenced");

  // getSilence reads the silence through a misspelt step name.
  await canvas.select("getSilence");
  const typeSilence = async (text: string) => {
    const editor = canvas.field("silence").locator(".cm-content");
    await editor.click();
    await page.keyboard.press("ControlOrMeta+a");
    await page.keyboard.type(text);
    await expect(editor).toHaveText(text);
  };
  await canvas.panel().getByTestId("expr-toggle-silence").click();
  await typeSilence("{{ $steps.createSilenc.data.silenceID }}");

  // Save: kept as a draft, the problem on the exact field with a suggestion, a badge on the node.
  await canvas.save();
  await expect(page.getByTestId("save-state")).toHaveText(/Saved · v2/);
  await expect(canvas.field("silence").getByRole("alert")).toHaveText('No step is named "createSilenc". Did you mean $steps.createSilence?');
  await expect(page.getByTestId("problem-count")).toHaveText("1 problem");
  await canvas.deselect();
  await canvas.fit();
  await expect(canvas.nodeByName("getSilence").getByTestId("node-problems")).toBeVisible();
  await expect(canvas.nodeByName("createSilence").getByTestId("node-problems")).toHaveCount(0);

  // Enabling is refused while the problem is there.
  await page.getByTestId("enabled-switch").click();
  // Said in the UI's terms (the API's "save it with enabled: false" is not for the switch).
  await expect(page.getByText("Not enabled: 1 problem to fix first, marked on the nodes. It stays disabled.").first()).toBeVisible();
  await expect(page.getByText(/enabled: false/)).toHaveCount(0);
  await expect(page.getByTestId("enabled-switch")).toHaveAttribute("aria-checked", "false");

  // The list marks it as a draft; reopened, it still shows the problem; the toolbar's list jumps to the node.
  await page.goto(`/w/${ws}/automations`);
  const row = page.getByTestId("automation-row-Silence and read it back");
  await expect(row.getByTestId("draft-badge")).toHaveText("Draft · 1 problem");
  await row.getByRole("link", { name: "Silence and read it back", exact: true }).click();
  await expect(canvas.canvas).toBeVisible();
  await expect(page.getByTestId("save-state")).toHaveText(/Saved · v2/);
  await page.getByTestId("problem-count").click();
  await page
    .getByTestId("problems-list")
    .getByRole("button", { name: /getSilence · silence/ })
    .click();
  await expect(canvas.panel()).toBeVisible();
  await expect(canvas.field("silence").getByRole("alert")).toContainText("Did you mean $steps.createSilence?");

  // Fixed, saved and enabled.
  await typeSilence("{{ $steps.createSilence.data.silenceID }}");
  await canvas.save();
  await expect(page.getByTestId("save-state")).toHaveText(/Saved · v3/);
  await expect(page.getByTestId("problem-count")).toHaveCount(0);
  await page.getByTestId("enabled-switch").click();
  await expect(page.getByTestId("enabled-switch")).toHaveAttribute("aria-checked", "true");

  // Deleting createSilence marks getSilence's field at once; undo brings both back clean.
  await canvas.select("createSilence");
  await canvas.nodeByName("createSilence").click();
  await page.keyboard.press("Delete");
  await expect(canvas.nodeByName("createSilence")).toHaveCount(0);
  await expect(canvas.nodeByName("getSilence").getByTestId("node-problems")).toBeVisible();
  await expect(page.getByTestId("problem-count")).toHaveText("1 problem");
  await page.keyboard.press("ControlOrMeta+z");
  await expect(canvas.nodeByName("createSilence")).toBeVisible();
  await expect(page.getByTestId("problem-count")).toHaveCount(0);
});
