/**
 * The editor keeps work through what happens at 3 a.m.: two tabs on the same automation (the later save
 * is refused as a conflict and explained, instead of silently replacing the other one's version), a
 * save while the server cannot be reached, a reload, and a session that ended while editing.
 */
import type { Page } from "@playwright/test";
import { test, expect } from "../fixtures";
import { createApp } from "../support/apps";
import { CanvasPage } from "../support/canvas-page";

async function newApp(api: Parameters<typeof createApp>[0], ws: string, name: string) {
  return createApp(api, ws, {
    name,
    enabled: false,
    graph: { nodes: [{ id: "n1", name: "start", key: "core.manual", config: {}, position: { x: 0, y: 0 } }], edges: [] },
  });
}

async function rename(page: Page, name: string) {
  await page.getByTestId("automation-name").fill(name);
  await expect(page.getByTestId("save-state")).toHaveText("Unsaved changes");
}

test("two tabs: the later save is refused as a conflict, then loads theirs or saves over it", async ({ page, api, seed }) => {
  const ws = seed.workspaceId;
  const app = await newApp(api, ws, "Two tabs");
  const other = await page.context().newPage();
  await new CanvasPage(page).goto(ws, app.id);
  await new CanvasPage(other).goto(ws, app.id);

  await rename(other, "Renamed in tab B");
  await rename(page, "Renamed in tab A");
  await page.getByTestId("save").click();
  await expect(page.getByTestId("save-state")).toHaveText("Saved · v2");

  // Tab B's save names the version its edits were made on (1): refused, explained, nothing lost.
  await other.getByTestId("save").click();
  const toast = other.locator("[data-sonner-toast]", { hasText: "someone else saved this automation (now version 2)" });
  await expect(toast).toBeVisible();
  await expect(other.getByTestId("save-state")).toHaveText("Unsaved changes");
  await expect(other.getByTestId("automation-name")).toHaveValue("Renamed in tab B");
  expect((await (await api.get(`/api/v1/factories/${ws}/apps/${app.id}`)).json()).name).toBe("Renamed in tab A");

  // "Load theirs": tab B now shows version 2 as saved.
  await toast.getByRole("button", { name: "Load theirs" }).click();
  await expect(other.getByTestId("automation-name")).toHaveValue("Renamed in tab A");
  await expect(other.getByTestId("save-state")).toHaveText("Saved · v2");

  // Again, and this time "Save mine over theirs".
  await rename(other, "Tab B wins");
  await rename(page, "Tab A again");
  await page.getByTestId("save").click();
  await expect(page.getByTestId("save-state")).toHaveText("Saved · v3");
  await other.getByTestId("save").click();
  await other.locator("[data-sonner-toast]", { hasText: "now version 3" }).getByRole("button", { name: "Save mine over theirs" }).click();
  await expect(other.getByTestId("save-state")).toHaveText("Saved · v4");
  expect((await (await api.get(`/api/v1/factories/${ws}/apps/${app.id}`)).json()).name).toBe("Tab B wins");
});

test("on a 390 px phone the conflict toast is readable and both its actions are full-size buttons, inside the screen, apart", async ({ page, api, seed }) => {
  const ws = seed.workspaceId;
  const app = await newApp(api, ws, "Two tabs, one phone");
  const phone = await page.context().newPage();
  await phone.setViewportSize({ width: 390, height: 844 });
  await new CanvasPage(page).goto(ws, app.id);
  await new CanvasPage(phone).goto(ws, app.id);
  await rename(phone, "Renamed on the phone");
  await rename(page, "Renamed at the desk");
  await page.getByTestId("save").click();
  await expect(page.getByTestId("save-state")).toHaveText("Saved · v2");
  await phone.getByTestId("save").click();

  const toast = phone.locator("[data-sonner-toast]", { hasText: "someone else saved this automation (now version 2)" });
  await expect(toast).toBeVisible();
  // Sonner slides the toast in: measure once it has stopped moving.
  await expect.poll(async () => toast.evaluate((el) => el.getAnimations({ subtree: true }).length)).toBe(0);
  const box = async (name: string) => (await toast.getByRole("button", { name, exact: true }).boundingBox())!;
  const mine = await box("Save mine over theirs");
  const theirs = await box("Load theirs");
  const message = (await toast.locator("[data-title]").boundingBox())!;
  const toastBox = (await toast.boundingBox())!;
  for (const b of [mine, theirs, message, toastBox]) {
    expect(b.x).toBeGreaterThanOrEqual(0);
    expect(b.y).toBeGreaterThanOrEqual(0);
    expect(b.x + b.width).toBeLessThanOrEqual(390);
    expect(b.y + b.height).toBeLessThanOrEqual(844);
  }
  const apart = (a: typeof mine, b: typeof mine) => a.x + a.width <= b.x || b.x + b.width <= a.x || a.y + a.height <= b.y || b.y + b.height <= a.y;
  expect(apart(mine, theirs)).toBe(true);
  expect(apart(mine, message) && apart(theirs, message)).toBe(true);
  // Readable: the message spans the toast (not a column squeezed beside the buttons), and the buttons are
  // touch-sized (36 px high at least).
  expect(message.width).toBeGreaterThan(toastBox.width * 0.75);
  expect(Math.min(mine.height, theirs.height)).toBeGreaterThanOrEqual(36);
  await phone.screenshot({ path: test.info().outputPath("save-conflict-390.png") });

  // Both work by touch-sized tap: "Load theirs" loads version 2.
  await toast.getByRole("button", { name: "Load theirs", exact: true }).click();
  await expect(phone.getByTestId("automation-name")).toHaveValue("Renamed at the desk");
  await expect(phone.getByTestId("save-state")).toHaveText("Saved · v2");
});

test("a save the server does not answer keeps the changes, and they survive a reload", async ({ page, api, seed }) => {
  const ws = seed.workspaceId;
  const app = await newApp(api, ws, "Server away");
  await new CanvasPage(page).goto(ws, app.id);
  page.on("dialog", (d) => void d.accept()); // the leave prompt on reload

  await rename(page, "Changed while the server was away");
  await page.route("**/api/trpc/automations.save**", (route) => route.abort("connectionrefused"));
  await page.getByTestId("save").click();
  await expect(
    page.locator("[data-sonner-toast]", { hasText: "Not saved: the server could not be reached. Your changes are kept in this browser" }),
  ).toBeVisible();
  await expect(page.getByTestId("save-state")).toHaveText("Unsaved changes");
  await page.unroute("**/api/trpc/automations.save**");

  await page.reload();
  const banner = page.getByTestId("local-draft");
  await expect(banner).toContainText("Unsaved changes from");
  await expect(page.getByTestId("automation-name")).toHaveValue("Server away");
  await banner.getByTestId("restore-draft").click();
  await expect(page.getByTestId("automation-name")).toHaveValue("Changed while the server was away");
  await page.getByTestId("save").click();
  await expect(page.getByTestId("save-state")).toHaveText("Saved · v2");
  // Saved: nothing is offered any more.
  await page.reload();
  await expect(page.getByTestId("save-state")).toHaveText("Saved · v2");
  await expect(page.getByTestId("local-draft")).toHaveCount(0);
});

test("signed out while editing: the save says so, and the changes come back after signing in", async ({ page, api, seed }) => {
  const ws = seed.workspaceId;
  const app = await newApp(api, ws, "Session ends");
  await new CanvasPage(page).goto(ws, app.id);
  page.on("dialog", (d) => void d.accept());

  await rename(page, "Edited before the session ended");
  await page.context().clearCookies();
  await page.getByTestId("save").click();
  await expect(page.locator("[data-sonner-toast]", { hasText: "Not saved: you were signed out. Your changes are kept in this browser" })).toBeVisible();
  await expect(page.getByTestId("save-state")).toHaveText("Unsaved changes");

  await page.goto("/sign-in");
  await page.getByLabel("Email").fill(seed.email);
  await page.getByLabel("Password").fill(seed.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/w\//);
  await new CanvasPage(page).goto(ws, app.id);
  await page.getByTestId("local-draft").getByTestId("restore-draft").click();
  await expect(page.getByTestId("automation-name")).toHaveValue("Edited before the session ended");
  await page.getByTestId("save").click();
  await expect(page.getByTestId("save-state")).toHaveText("Saved · v2");
});

test("a draft made on an older version says so and is checked against the newer one when saved", async ({ page, api, seed }) => {
  const ws = seed.workspaceId;
  const app = await newApp(api, ws, "Old draft");
  await new CanvasPage(page).goto(ws, app.id);
  page.on("dialog", (d) => void d.accept());
  await rename(page, "Draft on v1");
  // Someone else saves version 2 meanwhile (the API's If-Match-less PATCH, as a script would).
  const patched = await api.patch(`/api/v1/factories/${ws}/apps/${app.id}`, { data: { name: "Saved elsewhere" } });
  expect(patched.status(), await patched.text()).toBe(200);
  await page.reload();
  const banner = page.getByTestId("local-draft");
  await expect(banner).toContainText("Version 2 was saved since (yours were made on version 1)");
  await banner.getByTestId("restore-draft").click();
  await page.getByTestId("save").click();
  await expect(page.locator("[data-sonner-toast]", { hasText: "someone else saved this automation (now version 2)" })).toBeVisible();
  expect((await (await api.get(`/api/v1/factories/${ws}/apps/${app.id}`)).json()).name).toBe("Saved elsewhere");
});

test("a background refresh that fails (server restarting) keeps the editor and its unsaved changes", async ({ page, api, seed }) => {
  const ws = seed.workspaceId;
  const app = await newApp(api, ws, "Refresh fails");
  await new CanvasPage(page).goto(ws, app.id);
  await rename(page, "Edited while the server restarts");
  let refused = 0;
  const automationsGet = (url: URL) => url.pathname.includes("automations.get");
  await page.route(automationsGet, (route) => {
    refused++;
    return route.abort("connectionrefused");
  });
  // Coming back to the tab refetches what is stale (after 5 s): until it has been tried and retried.
  await expect
    .poll(
      async () => {
        await page.evaluate(() => window.dispatchEvent(new Event("visibilitychange")));
        return refused;
      },
      { timeout: 20_000, intervals: [250] },
    )
    .toBeGreaterThan(1);
  await expect(page.getByTestId("load-error")).toHaveCount(0);
  await expect(page.getByTestId("automation-name")).toHaveValue("Edited while the server restarts");
  await page.unroute(automationsGet);
  await page.getByTestId("save").click();
  await expect(page.getByTestId("save-state")).toHaveText("Saved · v2");
});

test("an edit made while a save is on its way stays unsaved (it was not in that save)", async ({ page, api, seed }) => {
  const ws = seed.workspaceId;
  const app = await newApp(api, ws, "Typing on");
  const canvas = new CanvasPage(page);
  await canvas.goto(ws, app.id);
  await rename(page, "First edit");
  // Hold the save at the network until the next edits are made.
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  let saves = 0;
  const automationsSave = (url: URL) => url.pathname.includes("automations.save");
  await page.route(automationsSave, async (route) => {
    saves++;
    await held;
    await route.continue();
  });
  await page.getByTestId("save").click();
  await expect.poll(() => saves).toBe(1);
  await page.getByTestId("automation-name").fill("Second edit");
  const added = await canvas.clickPalette("core.filter");
  release();
  await expect(page.locator("[data-sonner-toast]", { hasText: "Saved · version 2" })).toBeVisible();
  await expect(page.getByTestId("save-state")).toHaveText("Unsaved changes");
  const v2 = await (await api.get(`/api/v1/factories/${ws}/apps/${app.id}`)).json();
  expect(v2.name).toBe("First edit");
  expect(v2.graph.nodes).toHaveLength(1);

  await page.unroute(automationsSave);
  await page.getByTestId("save").click();
  await expect(page.getByTestId("save-state")).toHaveText("Saved · v3");
  const v3 = await (await api.get(`/api/v1/factories/${ws}/apps/${app.id}`)).json();
  expect(v3.name).toBe("Second edit");
  expect(v3.graph.nodes.map((n: { name: string }) => n.name)).toContain(added);
});

test("a secret typed into a node is not kept in the browser; the offer says where to type it again", async ({ page, api, seed }) => {
  const ws = seed.workspaceId;
  const app = await createApp(api, ws, {
    name: "Secret in a draft",
    enabled: false,
    graph: {
      nodes: [
        { id: "n1", name: "hook", key: "core.webhook", config: { authentication: "bearer", secret: "stored-secret-1234567890" }, position: { x: 0, y: 0 } },
      ],
      edges: [],
    },
  });
  const canvas = new CanvasPage(page);
  await canvas.goto(ws, app.id);
  page.on("dialog", (d) => void d.accept()); // the leave prompt on reload
  await canvas.select("hook");
  await page.getByTestId("field-secret").locator("input").fill("typed-secret-never-kept-42");
  await expect(page.getByTestId("save-state")).toHaveText("Unsaved changes");
  const kept = () => page.evaluate((k) => localStorage.getItem(k) ?? "", `conveyor:unsaved:${app.id}`);
  await expect.poll(kept).toContain('"secretsLeftOut":["hook"]');
  expect(await page.evaluate(() => JSON.stringify({ ...localStorage }))).not.toContain("typed-secret-never-kept-42");

  await page.reload();
  await expect(page.getByTestId("local-draft")).toContainText("Secrets are never kept in the browser: type them again in hook before saving.");
});
