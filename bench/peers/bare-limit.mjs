#!/usr/bin/env node
/**
 * The bare limit for durable webhook ingest on this machine: plain node:http, JSON.parse of the body
 * (400 when malformed), one row per delivery in SQLite (WAL, synchronous from BARE_SYNC), the rows of
 * one event-loop tick committed in one transaction, each 202 sent after that COMMIT. Nothing else:
 * no routing, no lookup, no trigger, no run. bench/ingest.ts starts it next to Conveyor and the peer.
 * Usage: node bench/peers/bare-limit.mjs <sqlite file>   (prints {"port":…} when listening)
 */
import http from "node:http";
import Database from "better-sqlite3";

const file = process.argv[2];
if (!file) throw new Error("usage: bare-limit.mjs <sqlite file>");
const db = new Database(file);
db.pragma("journal_mode = WAL");
db.pragma(`synchronous = ${process.env.BARE_SYNC === "FULL" ? "FULL" : "NORMAL"}`);
db.exec("create table if not exists deliveries (id integer primary key, received_at integer not null, body text not null)");
const insert = db.prepare("insert into deliveries (received_at, body) values (?, ?)");
const begin = db.prepare("BEGIN IMMEDIATE");
const commit = db.prepare("COMMIT");
const ACCEPTED = '{"accepted":1}';

let pending = [];
let scheduled = false;
function flush() {
  scheduled = false;
  const batch = pending;
  pending = [];
  begin.run();
  for (const d of batch) insert.run(d.at, d.text);
  commit.run();
  for (const d of batch) {
    d.res.writeHead(202, { "content-type": "application/json", "content-length": ACCEPTED.length });
    d.res.end(ACCEPTED);
  }
}

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    const text = (chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)).toString("utf8");
    try {
      JSON.parse(text);
    } catch {
      res.writeHead(400);
      res.end();
      return;
    }
    pending.push({ at: Date.now(), text, res });
    if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  });
});
server.keepAliveTimeout = 65_000;
server.listen(0, "127.0.0.1", () => console.log(JSON.stringify({ port: server.address().port })));
process.on("SIGTERM", () => {
  server.close();
  const n = db.prepare("select count(*) as n from deliveries").get().n;
  db.close();
  console.log(JSON.stringify({ stored: n }));
  process.exit(0);
});
