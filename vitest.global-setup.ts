/**
 * With CONVEYOR_TEST_BACKEND=postgres the whole suite runs on PostgreSQL 15 + Redis 7: one server
 * each for the run (Debian packages, temp dirs, loopback), a migrated template database that every
 * test database is cloned from, and the URLs handed to the test processes through the environment.
 */
import pg from "pg";
import { startPostgres, startRedis, type PgServer, type RedisServer } from "./db/testing/servers";
import { TEMPLATE_DB } from "./db/testing";
import { openPgBackend } from "./db/pg/backend";

let pgServer: PgServer | undefined;
let redis: RedisServer | undefined;

export async function setup() {
  if (process.env.CONVEYOR_TEST_BACKEND !== "postgres") return;
  pgServer = await startPostgres();
  redis = await startRedis();
  const admin = new pg.Client({ connectionString: pgServer.url });
  await admin.connect();
  await admin.query(`create database ${TEMPLATE_DB}`);
  await admin.end();
  const b = await openPgBackend(pgServer.url.replace(/\/postgres$/, `/${TEMPLATE_DB}`), { max: 2 });
  await b.close();
  process.env.CONVEYOR_TEST_PG_URL = pgServer.url;
  process.env.CONVEYOR_TEST_REDIS_URL = redis.url;
}

export async function teardown() {
  pgServer?.stop();
  redis?.stop();
}
