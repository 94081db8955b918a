/**
 * First-run set-up races (both backends): on PostgreSQL, 8 concurrent set-ups each counted no owner
 * under READ COMMITTED and 4 of them created an organization and an owner each, so a party racing the
 * administrator's first visit kept an owner account (and an organization) nobody saw. Exactly one
 * wins now; the others are told an owner exists.
 */
import { afterEach, beforeEach, expect, it } from "vitest";
import { createTestDeps, type TestDeps } from "../../testing";
import { setupOwner } from "./setup-owner";

let deps: TestDeps;
beforeEach(async () => {
  deps = await createTestDeps();
});
afterEach(async () => deps.close());

it("of 8 concurrent first-run set-ups exactly one creates the organization and its owner", async () => {
  const outcomes = await Promise.allSettled(
    Array.from({ length: 8 }, (_, i) => setupOwner(deps, { email: `owner${i}@example.com`, password: "correct horse battery" })),
  );
  expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(1);
  for (const o of outcomes.filter((x) => x.status === "rejected"))
    expect((o as PromiseRejectedResult).reason).toMatchObject({ code: "conflict", message: "An owner already exists; ask an admin for an invitation." });
  expect(await deps.store.users.ownerCount()).toBe(1);
  const org = (await deps.store.organizations.first())!;
  const winner = (outcomes.find((o) => o.status === "fulfilled") as PromiseFulfilledResult<Awaited<ReturnType<typeof setupOwner>>>).value;
  expect(winner.organization.id).toBe(org.id);
  expect((await deps.store.users.listMembers(org.id)).map((m) => m.email)).toEqual([winner.user.email]);
});
