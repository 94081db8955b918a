/**
 * Real Conveyor processes for the role tests: `npx conveyor ingress|worker` (bin/conveyor.mjs, as a
 * user runs them) and the web process (server/main.ts, what `npm start` runs), on loopback ports,
 * with their output kept for failure messages.
 */
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "../../..");

export interface ConveyorProcess {
  child: ChildProcess;
  base: string;
  output(): string;
  /** SIGTERM, then waits for the exit. */
  stop(): Promise<void>;
}

/** The environment of a child: only what the test says (no DATABASE_URL/REDIS_URL/PORT of the test runner leaking in). */
export function childEnv(vars: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of Object.keys(env)) if (/^(DATABASE_URL|REDIS_URL|PORT|HOST|CONVEYOR_|NEXTAUTH_|AUTH_SECRET)/.test(k)) delete env[k];
  return { ...env, NODE_ENV: "production", HOST: "127.0.0.1", LOG_LEVEL: "warn", NEXT_TELEMETRY_DISABLED: "1", ...vars };
}

function track(child: ChildProcess, port: number): ConveyorProcess {
  let out = "";
  child.stdout?.on("data", (d: Buffer) => (out = (out + d.toString()).slice(-20_000)));
  child.stderr?.on("data", (d: Buffer) => (out = (out + d.toString()).slice(-20_000)));
  return {
    child,
    base: `http://127.0.0.1:${port}`,
    output: () => out,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/** `npx conveyor <role> --port <port>` */
export function spawnRole(role: "ingress" | "worker", port: number, env: Record<string, string>): ConveyorProcess {
  const child = spawn(process.execPath, [path.join(ROOT, "bin/conveyor.mjs"), role, "--port", String(port)], {
    cwd: ROOT,
    env: childEnv(env),
    stdio: ["ignore", "pipe", "pipe"],
  });
  return track(child, port);
}

/** The web process as `npm start` runs it (needs a Next build in NEXT_DIST_DIR). */
export function spawnWeb(port: number, env: Record<string, string>): ConveyorProcess {
  const child = spawn(process.execPath, ["--import", "tsx", "server/main.ts"], {
    cwd: ROOT,
    env: childEnv({ PORT: String(port), ...env }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  return track(child, port);
}

export interface Answer {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
  text: string;
}

export async function get(url: string, timeoutMs = 10_000): Promise<Answer> {
  const r = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  const text = await r.text();
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    /* /metrics is text */
  }
  return { status: r.status, headers: r.headers, body, text };
}

export async function postJson(url: string, payload: unknown, timeoutMs = 30_000): Promise<Answer> {
  const r = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(payload),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await r.text();
  return { status: r.status, headers: r.headers, body: JSON.parse(text) as Record<string, unknown>, text };
}

/** Polls `url` until `ok(answer)`; fails with the process's output. */
export async function until(p: ConveyorProcess, url: string, ok: (a: Answer) => boolean, what: string, timeoutMs = 60_000): Promise<Answer> {
  const deadline = Date.now() + timeoutMs;
  let last: Answer | string = "no answer yet";
  for (;;) {
    if (p.child.exitCode !== null) throw new Error(`${what}: the process exited (${p.child.exitCode}):\n${p.output()}`);
    try {
      const a = await get(url, 5000);
      if (ok(a)) return a;
      last = a;
    } catch (e) {
      last = (e as Error).message;
    }
    if (Date.now() > deadline)
      throw new Error(
        `timed out waiting for ${what}; last answer: ${typeof last === "string" ? last : `${last.status} ${last.text.slice(0, 500)}`}\n${p.output()}`,
      );
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The value of one sample in Prometheus text (undefined when absent). */
export function sample(text: string, series: string): number | undefined {
  for (const line of text.split("\n")) if (line.startsWith(series + " ")) return Number(line.slice(series.length + 1));
  return undefined;
}
