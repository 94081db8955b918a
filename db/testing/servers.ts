/**
 * Real PostgreSQL 15 and Redis 7 servers for tests, benchmarks and the chaos suite: started from the
 * Debian packages in temporary directories on loopback, stopped (and removed) by `stop()`.
 * PostgreSQL refuses to run as root, so as root it runs as the `postgres` user (runuser).
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

const PG_BIN = process.env.CONVEYOR_PG_BIN ?? "/usr/lib/postgresql/15/bin";

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

function asPostgres(cmd: string, args: string[]): [string, string[]] {
  return process.getuid?.() === 0 ? ["runuser", ["-u", "postgres", "--", cmd, ...args]] : [cmd, args];
}

export interface PgServer {
  /** Superuser URL of the `postgres` database. */
  url: string;
  port: number;
  dir: string;
  /** Crash (immediate) or graceful stop; the data directory is kept. */
  halt(mode?: "immediate" | "fast"): void;
  /** Starts it again on the same port and data directory. */
  restart(): Promise<void>;
  /** Stops and removes everything. */
  stop(): void;
}

export interface PgServerOptions {
  /** Durable (fsync on) for chaos and benchmarks; fast (fsync off) for unit tests. */
  durable?: boolean;
  maxConnections?: number;
  port?: number;
  /** Extra server settings (`-c name=value`), e.g. the tuning of the scale-out benchmark. */
  settings?: Record<string, string | number>;
}

export async function startPostgres(opts: PgServerOptions = {}): Promise<PgServer> {
  if (!fs.existsSync(path.join(PG_BIN, "initdb"))) throw new Error(`PostgreSQL 15 not found in ${PG_BIN} (apt-get install postgresql)`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "conveyor-pg-"));
  fs.chmodSync(dir, 0o777);
  if (process.getuid?.() === 0) execFileSync("chown", ["postgres:", dir]);
  const data = path.join(dir, "data");
  const [c1, a1] = asPostgres(path.join(PG_BIN, "initdb"), ["-D", data, "-U", "conveyor", "-A", "trust", "--no-locale", "-E", "UTF8"]);
  execFileSync(c1, a1, { stdio: "ignore" });
  const port = opts.port ?? (await freePort());
  const settings = [
    `-p ${port}`,
    `-k ${dir}`,
    "-c listen_addresses=127.0.0.1",
    `-c max_connections=${opts.maxConnections ?? 200}`,
    ...(opts.durable ? [] : ["-c fsync=off", "-c synchronous_commit=off", "-c full_page_writes=off"]),
    ...Object.entries(opts.settings ?? {}).map(([k, v]) => `-c ${k}=${v}`),
  ].join(" ");
  const ctl = (args: string[]) => {
    const [c, a] = asPostgres(path.join(PG_BIN, "pg_ctl"), ["-D", data, ...args]);
    execFileSync(c, a, { stdio: "ignore" });
  };
  const start = () => ctl(["-w", "-l", path.join(dir, "log"), "-o", settings, "start"]);
  start();
  let running = true;
  return {
    url: `postgres://conveyor@127.0.0.1:${port}/postgres`,
    port,
    dir,
    halt(mode = "immediate") {
      if (!running) return;
      running = false;
      ctl(["-m", mode, "-w", "stop"]);
    },
    async restart() {
      if (running) return;
      start();
      running = true;
    },
    stop() {
      try {
        if (running) ctl(["-m", "immediate", "-w", "stop"]);
      } catch {
        /* already gone */
      }
      running = false;
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface RedisServer {
  url: string;
  port: number;
  dir: string;
  /** kill -9 */
  kill(): void;
  /** Starts again on the same port; `empty` wipes the data directory first (total loss). */
  restart(opts?: { empty?: boolean }): Promise<void>;
  stop(): void;
}

async function waitForPort(port: number, proc: ChildProcess, what: string, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (proc.exitCode !== null) throw new Error(`${what} exited with ${proc.exitCode}`);
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, "127.0.0.1", () => {
        s.end();
        resolve(true);
      });
      s.on("error", () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`${what} did not listen on ${port}`);
}

export async function startRedis(opts: { port?: number } = {}): Promise<RedisServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "conveyor-redis-"));
  const port = opts.port ?? (await freePort());
  let proc: ChildProcess;
  const start = async () => {
    proc = spawn(
      "redis-server",
      [
        "--port",
        String(port),
        "--bind",
        "127.0.0.1",
        "--dir",
        dir,
        "--save",
        "",
        "--appendonly",
        "yes",
        "--appendfsync",
        "everysec",
        "--maxmemory-policy",
        "noeviction",
        "--daemonize",
        "no",
        "--protected-mode",
        "yes",
      ],
      { stdio: "ignore" },
    );
    await waitForPort(port, proc, "redis-server");
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    dir,
    kill() {
      proc.kill("SIGKILL");
    },
    async restart(o = {}) {
      if (proc.exitCode === null && proc.signalCode === null) {
        proc.kill("SIGKILL");
        await new Promise((r) => proc.once("exit", r));
      }
      if (o.empty) for (const f of fs.readdirSync(dir)) fs.rmSync(path.join(dir, f), { recursive: true, force: true });
      await start();
    },
    stop() {
      proc.kill("SIGKILL");
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
