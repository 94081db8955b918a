/**
 * The web process (`npm start`, `npm run dev`): one node:http server that
 * - answers `/hooks/*` (webhook ingress) itself with the lean listener: Next's request path tops
 *   out near 1.8k req/s on these machines, the lean path does an order of magnitude more
 *   (docs/benchmarks.md), and deliveries must be committed before their 202;
 * - answers `/api/health`, `/api/health/ready` and `/metrics` itself (server/roles/ops-http.ts, the
 *   same code as `conveyor ingress` and `conveyor worker`), so probes do not depend on Next;
 * - hands every other request to Next.js;
 * - runs the durable runner in-process (set CONVEYOR_RUNNER=0 to leave it to `conveyor worker`
 *   processes), the queue sweeper, and the usage flusher when there is no runner.
 * This replaces DESIGN.md's instrumentation.ts start-up deliberately: one place owns start and shutdown.
 * Other roles: server/roles/start.ts (`conveyor ingress`, `conveyor worker`).
 */
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import next from "next";
import { env } from "./env";
import { getDeps } from "./deps";
import { startUsageFlusher } from "./usage-counters";
import { startProcessMemoryReducer } from "./memory-reducer";
import { processRole, setProcessRole, setProcessRunner } from "./roles/process-role";

/**
 * Production: Next's resolved configuration from the build (the same file `output: "standalone"`
 * servers read), so start-up does not compile next.config.ts (and load zod for it) again.
 */
function applyBuiltNextConfig(): void {
  if (process.env.__NEXT_PRIVATE_STANDALONE_CONFIG) return;
  try {
    const built = JSON.parse(fs.readFileSync(path.join(process.cwd(), env.NEXT_DIST_DIR, "required-server-files.json"), "utf8")) as { config?: unknown };
    if (built.config) process.env.__NEXT_PRIVATE_STANDALONE_CONFIG = JSON.stringify(built.config);
  } catch {
    /* no build: next() says so */
  }
}

/**
 * "in N ms" for the ready line: the start-up of this process, counted from the end of the build when
 * `npm start` built first (scripts/start.mjs and serve.mjs mark it), with the build named apart.
 */
function startupTook(): string {
  const builds = performance.getEntriesByName("conveyor:built", "mark") as PerformanceMark[];
  const ms = Math.round(performance.now() - (builds.at(-1)?.startTime ?? 0));
  const buildMs = builds.reduce((sum, m) => sum + (m.detail as number), 0);
  return builds.length ? `in ${ms} ms (after building for ${(buildMs / 1000).toFixed(1)} s)` : `in ${ms} ms`;
}

async function main() {
  const dev = process.argv.includes("--dev");
  setProcessRole("web");
  if (!dev) applyBuiltNextConfig();
  const app = next({ dev, hostname: env.HOST, port: env.PORT, dir: process.cwd() });
  // Next prepares in the background: the doors that do not need it (/hooks, health, /metrics) open as
  // soon as the database is (migrations applied); pages and API requests arriving meanwhile wait for it.
  type Handle = ReturnType<typeof app.getRequestHandler>;
  let handle: Handle | undefined;
  const nextReady: Promise<Handle> = app.prepare().then(() => (handle = app.getRequestHandler()));
  nextReady.catch((e: unknown) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  });
  const deps = await getDeps();
  startProcessMemoryReducer(env);
  const { handleHookRequest } = await import("./webhooks/lean-listener");
  const { createClientAddressResolver, stampClientAddress } = await import("./http/client-address");
  const { frontDoorResponse } = await import("./http/front-door");
  const { opsRoute } = await import("./roles/ops-http");
  // Loaded now, not when stopping: a rebuild replaces dist/server under a running server (its chunks are gone by then).
  const [{ flushRefusals }, { stopInOrder }] = await Promise.all([import("./services/webhooks/refusals"), import("./stop-in-order")]);
  const ops = { deps, role: processRole };
  const clientAddress = createClientAddressResolver(env.CONVEYOR_TRUST_PROXY);

  const { listenerOptions } = await import("./http/listener-limits");
  const server = http.createServer(listenerOptions(), (req, res) => {
    if (req.url && req.url.startsWith("/hooks/")) {
      handleHookRequest(req, res, deps, {
        maxBytes: env.CONVEYOR_WEBHOOK_MAX_BYTES,
        timeoutMs: env.CONVEYOR_WEBHOOK_TIMEOUT_MS,
        outcomeGraceMs: env.CONVEYOR_WEBHOOK_OUTCOME_GRACE_MS,
        signatureToleranceS: env.CONVEYOR_WEBHOOK_SIGNATURE_TOLERANCE_S,
      });
      return;
    }
    if (opsRoute(req, res, ops)) return;
    const rid = req.headers["x-request-id"];
    const refused = frontDoorResponse(req.url ?? "/", typeof rid === "string" ? rid : null);
    if (refused) {
      req.resume();
      void refused.text().then((text) => {
        res.writeHead(refused.status, Object.fromEntries(refused.headers));
        res.end(text);
      });
      return;
    }
    stampClientAddress(req, clientAddress);
    if (handle) handle(req, res);
    else
      void nextReady.then(
        (h) => h(req, res),
        () => undefined,
      );
  });
  server.keepAliveTimeout = 65_000;

  await (await import("./http/listen")).listen(server, env.PORT, env.HOST, "PORT");
  const shown = env.HOST === "0.0.0.0" || env.HOST === "::" ? "localhost" : env.HOST;
  console.log(`Conveyor ${dev ? "(dev) " : ""}ready on http://${shown}:${env.PORT} ${startupTook()}  (public URL ${deps.publicUrl}, data ${env.dataDir})`);
  const hint = await (await import("./first-run-hint")).firstRunHint(deps.store, deps.publicUrl).catch(() => null);
  if (hint) console.log(hint);

  // The runner starts once the doors are open (work committed meanwhile waits in the queue).
  let runner: { stop(): Promise<void> } | undefined;
  let stopFlusher: (() => Promise<void>) | undefined;
  if (env.CONVEYOR_RUNNER) {
    const [{ startRunner }, { runnerOptionsFromEnv }, { runnerHooks }] = await Promise.all([
      import("./runner/runner-loop"),
      import("./runner/runner-env"),
      import("./runner-hooks"),
    ]);
    const started = startRunner(deps, runnerHooks(deps), runnerOptionsFromEnv(env));
    setProcessRunner(started);
    runner = started;
  } else {
    // Without a runner (it flushes in its maintenance), this process flushes its own usage counters.
    stopFlusher = startUsageFlusher(deps.store);
  }
  const stopSweeper = deps.queue.startSweeper();

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: stopping (finishing in-flight work)…`);
    server.close();
    const ok = await stopInOrder([
      ["writing the refusal counts", () => flushRefusals(deps)],
      ["the runner", () => runner?.stop()],
      ["the usage flusher", () => stopFlusher?.()],
      ["the queue sweeper", () => stopSweeper()],
      ["Next.js", () => app.close?.()],
      ["the queue", () => deps.queue.close()],
      ["the database", () => deps.store.close()],
    ]);
    process.exit(ok ? 0 : 1);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
