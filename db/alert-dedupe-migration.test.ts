/**
 * Upgrading across the change of metrics.onAlert's dedupe key (fingerprint first → startsAt first,
 * migration 0009 / pg 0005): an alert episode stored before the upgrade keeps its one run when
 * Alertmanager repeats it after, because the stored key is rewritten to what the trigger now computes.
 * Other events' keys are left alone. Runs on the backend under test (CONVEYOR_TEST_PG_URL: PostgreSQL).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { drizzle as pgDrizzle } from "drizzle-orm/node-postgres";
import { migrate as pgMigrate } from "drizzle-orm/node-postgres/migrator";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { onAlert } from "@/integrations/metrics/triggers/on-alert";
import { openDb, runMigrations } from "./client";
import { testBackend } from "./testing";

const TAG = "alert_dedupe_time_first";
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

/** A copy of a migrations folder whose journal stops before this change's migration. */
function foldersAround(folder: string): { before: string; after: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "conveyor-mig-"));
  dirs.push(dir);
  fs.cpSync(folder, dir, { recursive: true });
  const file = path.join(dir, "meta", "_journal.json");
  const journal = JSON.parse(fs.readFileSync(file, "utf8")) as { entries: Array<{ tag: string }> };
  const at = journal.entries.findIndex((e) => e.tag.endsWith(TAG));
  expect(at, `${TAG} in ${folder}`).toBeGreaterThan(0);
  fs.writeFileSync(file, JSON.stringify({ ...journal, entries: journal.entries.slice(0, at) }));
  return { before: dir, after: folder };
}

const alert = (status: "firing" | "resolved") => ({
  status,
  labels: { alertname: "DiskFull", instance: "db-1" },
  annotations: {},
  startsAt: "2026-11-22T03:51:44.384Z",
  endsAt: status === "resolved" ? "2026-11-22T04:10:00Z" : "0001-01-01T00:00:00Z",
  generatorURL: "http://127.0.0.1:9090/graph",
  fingerprint: "4e9baf9527438810",
});
/** The key the trigger computes today for an Alertmanager notification carrying `a`. */
async function keyNow(a: ReturnType<typeof alert>): Promise<string> {
  const body = {
    version: "4",
    status: a.status,
    receiver: "conveyor",
    groupKey: "{}",
    alerts: [a],
    groupLabels: {},
    commonLabels: a.labels,
    commonAnnotations: {},
    externalURL: "http://am",
  };
  const events = await onAlert.match!(
    { body, rawBody: Buffer.from(JSON.stringify(body)), headers: {}, method: "POST", query: {} } as never,
    { config: { statuses: ["firing", "resolved"] } } as never,
  );
  return events[0]!.dedupeKey!;
}

const rows = [
  { id: "evt_firing", scope: "int_1", type: "metrics.alert", key: "4e9baf9527438810:firing:2026-11-22T03:51:44.384Z" },
  { id: "evt_resolved", scope: "int_1", type: "metrics.alert", key: "4e9baf9527438810:resolved:2026-11-22T03:51:44.384Z" },
  // Not the alert trigger's: left as they are.
  { id: "evt_issue", scope: "int_2", type: "tracker.issue", key: "4e9baf9527438810:firing:2026-11-22T03:51:44.384Z" },
  { id: "evt_hook", scope: "int_3", type: "core.webhook", key: "delivery-42" },
];
const expected = async () => ({
  evt_firing: await keyNow(alert("firing")),
  evt_resolved: await keyNow(alert("resolved")),
  evt_issue: rows[2]!.key,
  evt_hook: rows[3]!.key,
});

describe(`migration ${TAG}`, () => {
  it.runIf(testBackend() === "sqlite")("SQLite: stored alert keys become the trigger's current keys", async () => {
    const { before, after } = foldersAround("db/migrations");
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "conveyor-mig-db-"));
    dirs.push(dir);
    const db = openDb(path.join(dir, "t.db"), { migrationsFolder: before });
    const insert = db.$client.prepare(
      "insert into events (id, workspace_id, dedupe_scope, dedupe_key, type, envelope, source, received_at) values (?, 'ws_1', ?, ?, ?, '{}', 'webhook', '2026-11-22T03:51:45Z')",
    );
    for (const r of rows) insert.run(r.id, r.scope, r.key, r.type);
    runMigrations(db, after);
    const got = Object.fromEntries(
      (db.$client.prepare("select id, dedupe_key as k from events").all() as Array<{ id: string; k: string }>).map((r) => [r.id, r.k]),
    );
    expect(got).toEqual(await expected());
    db.$client.close();
  });

  it.runIf(testBackend() === "postgres")("PostgreSQL: stored alert keys become the trigger's current keys", async () => {
    const { before, after } = foldersAround("db/migrations-pg");
    const adminUrl = process.env.CONVEYOR_TEST_PG_URL!;
    const name = `t_mig_${process.pid}_${Date.now().toString(36)}`;
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`create database "${name}"`);
    const client = new pg.Client({ connectionString: adminUrl.replace(/\/[^/?]*(\?|$)/, `/${name}$1`) });
    try {
      await client.connect();
      const db = pgDrizzle(client, { casing: "snake_case" });
      await pgMigrate(db, { migrationsFolder: before });
      for (const r of rows)
        await client.query(
          "insert into events (id, workspace_id, dedupe_scope, dedupe_key, type, envelope, source, received_at) values ($1, 'ws_1', $2, $3, $4, '{}', 'webhook', '2026-11-22T03:51:45Z')",
          [r.id, r.scope, r.key, r.type],
        );
      await pgMigrate(db, { migrationsFolder: after });
      const got = Object.fromEntries((await client.query<{ id: string; k: string }>("select id, dedupe_key as k from events")).rows.map((r) => [r.id, r.k]));
      expect(got).toEqual(await expected());
    } finally {
      await client.end();
      await admin.query(`drop database if exists "${name}" with (force)`);
      await admin.end();
    }
  });
});
