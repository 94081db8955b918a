/**
 * The SQLite group committer (this file tests the SQLite engine itself, whichever backend the run
 * uses): the writes of one tick share one transaction; an item that throws is rejected alone, with
 * none of its writes kept, and the in-memory effects of the first pass are forgotten.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "../testing";
import { groupCommitter } from "./group-commit";

let t: TestDb;
beforeEach(() => {
  t = createTestDb();
  t.db.$client.exec("create table gc_probe (id integer primary key, v text not null unique)");
});
afterEach(() => t.close());

const rows = () => (t.db.$client.prepare("select v from gc_probe order by id").all() as Array<{ v: string }>).map((r) => r.v);
const insert = (v: string) => (tx: TestDb["db"]) => tx.$client.prepare("insert into gc_probe (v) values (?)").run(v).lastInsertRowid;

describe("group commit", () => {
  it("commits the writes of one tick in one transaction, each caller resolved after the COMMIT", async () => {
    const c = groupCommitter(t.db);
    const before = c.commits;
    const results = await Promise.all(["a", "b", "c"].map((v) => c.run(insert(v))));
    expect(results).toHaveLength(3);
    expect(rows()).toEqual(["a", "b", "c"]);
    expect(c.commits - before).toBe(1);
    expect(t.db.$client.inTransaction).toBe(false);
  });

  it("rejects a failing item alone: its partial writes are undone, the others commit, the batch's hooks see one clean pass", async () => {
    const c = groupCommitter(t.db);
    let counted = 0;
    let aborts = 0;
    let counter = 0;
    c.onBatchAbort(() => {
      aborts++;
      counter = 0;
    });
    c.onBatchEnd(() => {
      counted += counter;
      counter = 0;
    });
    const item = (v: string) => (tx: TestDb["db"]) => {
      insert(v)(tx);
      counter++;
    };
    const failing = (tx: TestDb["db"]) => {
      insert("partial")(tx); // written, then the item fails: must not survive
      insert("a")(tx); // unique violation
    };
    const replays = c.replays;
    const outcomes = await Promise.allSettled([c.run(item("a")), c.run(failing), c.run(item("b"))]);
    expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(String((outcomes[1] as PromiseRejectedResult).reason)).toMatch(/UNIQUE/);
    expect(rows()).toEqual(["a", "b"]);
    expect(c.replays - replays).toBe(1);
    expect(aborts).toBe(1);
    // The counters of the rolled-back first pass were forgotten: two items counted once each.
    expect(counted).toBe(2);
    // The committer keeps working after a replay, without savepoints again.
    await Promise.all([c.run(item("c")), c.run(item("d"))]);
    expect(rows()).toEqual(["a", "b", "c", "d"]);
    expect(c.replays - replays).toBe(1);
  });
});
