/**
 * Shared Playwright fixtures: `seed` (owner credentials, workspace id, admin API key), `api`
 * (an APIRequestContext authenticated with the admin key) and `probe` (the base URL of a small
 * loopback HTTP server answering `GET /health` with 200 `{"status":"ok"}`: a target for `core.http`
 * steps, since the egress policy never lets an automation call Conveyor's own port). Pages start
 * signed in as the owner.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { test as base, expect, type APIRequestContext } from "@playwright/test";
import { readSeed, type Seed } from "./support/seed";

export const test = base.extend<{ seed: Seed; api: APIRequestContext }, { probe: string }>({
  seed: async ({}, use) => use(readSeed()),
  api: async ({ playwright, baseURL, seed }, use) => {
    const ctx = await playwright.request.newContext({ baseURL, extraHTTPHeaders: { Authorization: `Bearer ${seed.apiKey}` } });
    await use(ctx);
    await ctx.dispose();
  },
  probe: [
    async ({}, use) => {
      const server = http.createServer((req, res) => {
        const ok = req.url?.startsWith("/health");
        res.writeHead(ok ? 200 : 404, { "content-type": "application/json" });
        res.end(JSON.stringify(ok ? { status: "ok" } : { error: "not found" }));
      });
      await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
      await use(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
      await new Promise((r) => server.close(r));
    },
    { scope: "worker" },
  ],
});

export { expect };
