/**
 * The peer: Node-RED (installed by the bench itself from the npm registry into a scratch directory,
 * never a dependency of Conveyor) running the flow a Node-RED user would build for the same job:
 * `http in` (POST, JSON body) → 3 `function` nodes (the same three checks as Conveyor's three
 * `core.filter` steps) → `http response` 202. Memory only: Node-RED keeps nothing, so a crash loses
 * every delivery in flight (Conveyor commits each one before its 202).
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export const NODE_RED_VERSION = process.env.BENCH_NODE_RED_VERSION ?? "5.0.7";
export const NODE_RED_PATH = "/hooks/alert";

/** The scratch install (kept between runs in the temp directory): the path of red.js, or why not. */
export function ensureNodeRed(): { redJs: string } | { error: string } {
  const dir = path.join(os.tmpdir(), "conveyor-bench-peers", `node-red-${NODE_RED_VERSION}`);
  const redJs = path.join(dir, "node_modules", "node-red", "red.js");
  if (fs.existsSync(redJs)) return { redJs };
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "conveyor-bench-peer", private: true }));
  process.stderr.write(`bench: installing node-red@${NODE_RED_VERSION} into ${dir} (npm registry)…\n`);
  // --ignore-scripts: no native builds (bcrypt falls back to bcryptjs; the admin API is off anyway).
  const r = spawnSync("npm", ["install", "--no-audit", "--no-fund", "--ignore-scripts", "--no-save", `node-red@${NODE_RED_VERSION}`], {
    cwd: dir,
    encoding: "utf8",
    timeout: 300_000,
  });
  if (r.status !== 0 || !fs.existsSync(redJs))
    return { error: `npm install node-red@${NODE_RED_VERSION} failed: ${(r.stderr || r.error?.message || "").trim().split("\n").slice(-3).join(" ")}` };
  return { redJs };
}

const fn = (id: string, name: string, body: string, next: string) => ({
  id,
  type: "function",
  z: "bench",
  name,
  func: body,
  outputs: 1,
  timeout: 0,
  noerr: 0,
  initialize: "",
  finalize: "",
  libs: [],
  wires: [[next]],
});

export const FLOW = [
  { id: "bench", type: "tab", label: "Alertmanager webhook" },
  { id: "in", type: "http in", z: "bench", name: "", url: NODE_RED_PATH, method: "post", upload: false, swaggerDoc: "", wires: [["f1"]] },
  fn("f1", "firing", "msg.firing = msg.payload.status === 'firing';\nreturn msg;", "f2"),
  fn("f2", "has alerts", "msg.hasAlerts = Array.isArray(msg.payload.alerts) && msg.payload.alerts.length > 0;\nreturn msg;", "f3"),
  fn("f3", "both", "msg.passed = msg.firing && msg.hasAlerts;\nmsg.payload = { accepted: 1 };\nreturn msg;", "out"),
  { id: "out", type: "http response", z: "bench", name: "", statusCode: "202", headers: {}, wires: [] },
];

/** Starts Node-RED on `port` with the flow above (editor and admin API off). */
export function startNodeRed(redJs: string, port: number): { child: ChildProcess; dir: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "conveyor-bench-node-red-"));
  fs.writeFileSync(path.join(dir, "flows.json"), JSON.stringify(FLOW));
  fs.writeFileSync(
    path.join(dir, "settings.js"),
    `module.exports = ${JSON.stringify({
      uiHost: "127.0.0.1",
      uiPort: port,
      httpAdminRoot: false,
      httpNodeRoot: "/",
      flowFile: "flows.json",
      credentialSecret: false,
      logging: { console: { level: "warn", metrics: false, audit: false } },
      diagnostics: { enabled: false },
      runtimeState: { enabled: false },
      telemetry: { enabled: false },
      externalModules: { autoInstall: false, palette: { allowInstall: false }, modules: { allowInstall: false } },
    })};\n`,
  );
  const child = spawn(process.execPath, [redJs, "--userDir", dir, "--settings", path.join(dir, "settings.js"), "flows.json"], {
    cwd: dir,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, NODE_ENV: "production" },
  });
  return { child, dir };
}
