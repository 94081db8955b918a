/**
 * Test helper: a real PostgreSQL server for migrate-to-postgres tests whichever backend the suite
 * runs on (the suite's server under CONVEYOR_TEST_BACKEND=postgres, else one started for the file),
 * and fresh empty databases on it (no migrations applied: the command applies them).
 */
import pg from "pg";
import { startPostgres, startRedis, type PgServer, type RedisServer } from "../testing/servers";

export interface MigrationTestServers {
  /** A new, empty database; its URL carries a password (ignored by the trust setup) so tests can check it is masked. */
  freshDatabase(): Promise<string>;
  redisUrl: string;
  stop(): Promise<void>;
}

let n = 0;

export async function startMigrationTestServers(opts: { redis?: boolean } = {}): Promise<MigrationTestServers> {
  let server: PgServer | undefined;
  let redis: RedisServer | undefined;
  let adminUrl = process.env.CONVEYOR_TEST_PG_URL;
  if (!adminUrl) {
    server = await startPostgres();
    adminUrl = server.url;
  }
  let redisUrl = process.env.CONVEYOR_TEST_REDIS_URL ?? "";
  if (opts.redis && !redisUrl) {
    redis = await startRedis();
    redisUrl = redis.url;
  }
  const admin = adminUrl;
  const created: string[] = [];
  return {
    redisUrl,
    async freshDatabase() {
      const name = `mtp_${process.pid}_${Date.now().toString(36)}_${++n}`;
      await adminQuery(admin, `create database "${name}" template template0 encoding 'UTF8'`);
      created.push(name);
      const u = new URL(admin.replace(/\/[^/?]*(\?|$)/, `/${name}$1`));
      u.password = "s3cret-pw";
      return u.toString();
    },
    async stop() {
      if (!server) for (const name of created) await adminQuery(admin, `drop database if exists "${name}" with (force)`);
      server?.stop();
      redis?.stop();
    },
  };
}

async function adminQuery(url: string, sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

/** Rows per Conveyor table (and other public tables) on a database: what "changes nothing" compares. */
export async function tableCounts(url: string): Promise<Record<string, number>> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const tables = (await c.query<{ t: string }>("select table_name as t from information_schema.tables where table_schema = 'public' order by 1")).rows.map(
      (r) => r.t,
    );
    const out: Record<string, number> = {};
    for (const t of tables) out[t] = Number((await c.query<{ n: string }>(`select count(*)::text as n from "${t}"`)).rows[0]!.n);
    return out;
  } finally {
    await c.end();
  }
}
