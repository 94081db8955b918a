import { expect, it } from "vitest";
import { stopInOrder } from "./stop-in-order";

it("runs every step in order when one fails, says which failed and why, and answers false", async () => {
  const ran: string[] = [];
  const lines: string[] = [];
  const ok = await stopInOrder(
    [
      ["the first", () => void ran.push("first")],
      [
        "writing the refusal counts",
        async () => {
          ran.push("second");
          throw new Error("Cannot find module 'refusals-JAU6HTTH.mjs'");
        },
      ],
      ["the database", async () => void ran.push("third")],
    ],
    (l) => lines.push(l),
  );
  expect(ok).toBe(false);
  expect(ran).toEqual(["first", "second", "third"]);
  expect(lines).toEqual(["Stopping: writing the refusal counts failed (Cannot find module 'refusals-JAU6HTTH.mjs'); going on with the rest of the stop."]);
});

it("answers true and says nothing when every step succeeds", async () => {
  const lines: string[] = [];
  expect(
    await stopInOrder(
      [
        ["a", () => undefined],
        ["b", async () => 1],
      ],
      (l) => lines.push(l),
    ),
  ).toBe(true);
  expect(lines).toEqual([]);
});
