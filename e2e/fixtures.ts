/**
 * Shared Playwright fixtures: `seed` (owner credentials, workspace id, admin API key) and `api`
 * (an APIRequestContext authenticated with the admin key). Pages start signed in as the owner.
 */
import { test as base, expect, type APIRequestContext } from "@playwright/test";
import { readSeed, type Seed } from "./support/seed";

export const test = base.extend<{ seed: Seed; api: APIRequestContext }>({
  seed: async ({}, use) => use(readSeed()),
  api: async ({ playwright, baseURL, seed }, use) => {
    const ctx = await playwright.request.newContext({ baseURL, extraHTTPHeaders: { Authorization: `Bearer ${seed.apiKey}` } });
    await use(ctx);
    await ctx.dispose();
  },
});

export { expect };
