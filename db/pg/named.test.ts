/** preparedOn: statements prepared once per connection, one PREPARE at a time (node-postgres deprecates overlapping queries on a client). */
import { describe, expect, it } from "vitest";
import type pg from "pg";
import { preparedOn } from "./named";

/** A client that records what it was sent and how many queries overlapped (each answers after a tick). */
function recordingClient(failFirst = false) {
  let inFlight = 0;
  const seen = { sent: [] as string[], maxInFlight: 0 };
  const client = {
    async query(text: string) {
      inFlight++;
      seen.maxInFlight = Math.max(seen.maxInFlight, inFlight);
      seen.sent.push(text);
      await new Promise((r) => setTimeout(r, 5));
      inFlight--;
      if (failFirst && seen.sent.length === 1) throw new Error("connection lost");
      return { rows: [] };
    },
  };
  return { client: client as unknown as pg.PoolClient, seen };
}

describe("preparedOn", () => {
  it("sends the PREPAREs of a claim one at a time, as its Promise.all asks for five at once", async () => {
    const { client, seen } = recordingClient();
    const names = ["a", "b", "c", "d", "e"];
    const exec = await Promise.all(names.map((n) => preparedOn(client, `cv_${n}`, `select ${n}`)));
    expect(seen.maxInFlight).toBe(1);
    expect(seen.sent).toEqual(names.map((n) => `PREPARE cv_${n} AS select ${n}`));
    expect(exec[0]!("'x'")).toBe("EXECUTE cv_a('x')");
    // Prepared once per connection.
    await Promise.all(names.map((n) => preparedOn(client, `cv_${n}`, `select ${n}`)));
    expect(seen.sent).toHaveLength(5);
  });

  it("does not let a failed PREPARE block the next ones, and retries it on the next call", async () => {
    const { client, seen } = recordingClient(true);
    const [a, b] = await Promise.allSettled([preparedOn(client, "cv_a", "select 1"), preparedOn(client, "cv_b", "select 2")]);
    expect(a.status).toBe("rejected");
    expect(b.status).toBe("fulfilled");
    await preparedOn(client, "cv_a", "select 1");
    expect(seen.sent).toEqual(["PREPARE cv_a AS select 1", "PREPARE cv_b AS select 2", "PREPARE cv_a AS select 1"]);
  });
});
