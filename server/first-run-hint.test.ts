/** `npm start` on an empty installation says what to do next; once the owner exists it says nothing more. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDeps } from "./testing";
import { firstRunHint } from "./first-run-hint";
import { setupOwner } from "./services/users/setup-owner";

let deps: Awaited<ReturnType<typeof createTestDeps>>;
beforeAll(async () => {
  deps = await createTestDeps();
});
afterAll(async () => deps.close());

describe("first-run hint", () => {
  it("points at the owner set-up until an owner exists", async () => {
    expect(await firstRunHint(deps.store, "http://localhost:49300")).toBe(
      "No owner yet: open http://localhost:49300 to create the owner account (or run: npx conveyor owner create --email … --password …)",
    );
    await setupOwner(deps, { email: "first@example.com", password: "correct horse battery" });
    expect(await firstRunHint(deps.store, "http://localhost:49300")).toBeNull();
  });
});
