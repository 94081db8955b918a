#!/usr/bin/env node
/**
 * Compiles the custom server, the runner and the CLI (server/main.ts, server/cli/main.ts and all
 * they import from server/, db/, integrations/) into ESM bundles in dist/server/ with esbuild, so
 * production runs JavaScript without a TypeScript loader at run time (Next.js builds the app
 * itself: `next build`). Packages in node_modules stay external (shared with Next's bundle:
 * better-sqlite3, drizzle, prom-client, …). The expression worker (a separate process, plain .mjs) is
 * copied next to the bundle, where the pool looks for it first.
 *
 *   node scripts/build-server.mjs             build
 *   node scripts/build-server.mjs --if-stale  build only when a source file is newer than the bundle
 *
 * dist/server/build-info.json lists every source file the bundle was made of (esbuild's metafile):
 * `serverBundleStale()` compares their modification times, so start-up checks in milliseconds.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const SERVER_DIST = path.join(root, "dist", "server");
const INFO = path.join(SERVER_DIST, "build-info.json");
const ENTRIES = { main: "server/main.ts", cli: "server/cli/main.ts" };
const COPIED = ["integrations/core/sandbox/expression-worker.mjs", "integrations/core/sandbox/evaluate-core.mjs"];
/** Files outside the import graph that change what the bundle does. */
const ALSO = ["package.json", "package-lock.json", "tsconfig.json", "scripts/build-server.mjs"];

/** Every dependency of package.json, except those compiled into the bundle. */
function externals(dir = root) {
  const pkg = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8"));
  const bundled = new Set(["drizzle-orm"]);
  return Object.keys({ ...pkg.dependencies, ...pkg.devDependencies }).filter((d) => !bundled.has(d));
}

/**
 * How the server's TypeScript becomes the JavaScript production runs (esbuild options shared by the
 * server bundle and bench/compile.mjs, which compiles a bench's entry the same way).
 */
export function compileOptions(dir = root) {
  return {
    absWorkingDir: dir,
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node22",
    // Packages stay in node_modules (shared with Next's bundle), except drizzle-orm: loaded as ESM from
    // node_modules, each of its ~200 modules made Node parse its 180 KB package.json again (~0.5 s of
    // every start-up, measured with --cpu-prof); bundled, it is one more chunk.
    external: externals(dir),
    legalComments: "none",
    logLevel: "warning",
    // Bundled TypeScript is ESM; a `require` left in it (or in a dependency's inlined helper) still works.
    banner: { js: "import { createRequire as __conveyorRequire } from 'node:module'; const require = __conveyorRequire(import.meta.url);" },
  };
}

/** Why the bundle must be (re)built, or null when it is up to date. */
export function serverBundleStale() {
  let info;
  try {
    info = JSON.parse(fs.readFileSync(INFO, "utf8"));
  } catch {
    return "no server build yet";
  }
  for (const rel of [...info.inputs, ...ALSO, ...COPIED]) {
    let m;
    try {
      m = fs.statSync(path.join(root, rel)).mtimeMs;
    } catch {
      return `${rel} is gone`;
    }
    if (m > info.builtAt) return `${rel} changed`;
  }
  for (const f of Object.keys(ENTRIES)) if (!fs.existsSync(path.join(SERVER_DIST, `${f}.mjs`))) return `dist/server/${f}.mjs is missing`;
  return null;
}

/** The server bundle's esbuild options (split into hash-named chunks) into `outdir`; `entries` defaults to the server's own. */
export function bundleOptions(outdir, entries = ENTRIES) {
  return { ...compileOptions(), entryPoints: entries, outdir, splitting: true, outExtension: { ".js": ".mjs" }, chunkNames: "[name]-[hash]" };
}

/** Builds into a fresh directory and swaps it in, so a process starting meanwhile never sees half a build. */
export async function buildServer({ quiet = false } = {}) {
  const esbuild = await import("esbuild");
  const started = Date.now();
  const tmp = `${SERVER_DIST}.tmp-${process.pid}-${started}`;
  const result = await esbuild.build({ ...bundleOptions(tmp), sourcemap: "linked", metafile: true });
  // esbuild keeps its service process alive for later builds: this process is about to become a server.
  await esbuild.stop();
  for (const rel of COPIED) fs.copyFileSync(path.join(root, rel), path.join(tmp, path.basename(rel)));
  const inputs = Object.keys(result.metafile.inputs).filter((p) => !p.startsWith("node_modules/"));
  const unresolved = Object.keys(result.metafile.inputs).filter((p) => p.startsWith("node_modules/") && !p.startsWith("node_modules/drizzle-orm/"));
  if (unresolved.length) throw new Error(`bundled by mistake (add to externals or to the bundled list): ${unresolved.slice(0, 5).join(", ")}`);
  fs.writeFileSync(path.join(tmp, "build-info.json"), JSON.stringify({ builtAt: started, inputs }, null, 1));
  fs.writeFileSync(path.join(tmp, "package.json"), JSON.stringify({ type: "module" }));
  const old = `${SERVER_DIST}.old-${process.pid}-${started}`;
  if (fs.existsSync(SERVER_DIST)) fs.renameSync(SERVER_DIST, old);
  fs.renameSync(tmp, SERVER_DIST);
  fs.rmSync(old, { recursive: true, force: true });
  if (!quiet) process.stderr.write(`Server bundle: dist/server (${inputs.length} source files, ${Date.now() - started} ms)\n`);
}

/** Builds the server bundle when it is missing or stale (with a lock, so parallel test workers build once); true when this call built it. */
export async function ensureServerBundle({ quiet = false } = {}) {
  if (!serverBundleStale()) return false;
  fs.mkdirSync(path.dirname(SERVER_DIST), { recursive: true });
  const lock = `${SERVER_DIST}.lock`;
  for (const until = Date.now() + 120_000; ; ) {
    try {
      fs.mkdirSync(lock);
      break;
    } catch {
      // Another process is building; a lock older than two minutes is a leftover.
      try {
        if (Date.now() - fs.statSync(lock).mtimeMs > 120_000) fs.rmSync(lock, { recursive: true, force: true });
      } catch {
        /* gone meanwhile */
      }
      if (Date.now() > until) throw new Error(`${lock} is held: another build did not finish`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  try {
    const why = serverBundleStale();
    if (why) {
      if (!quiet) process.stderr.write(`Building the server (${why})…\n`);
      await buildServer({ quiet });
      return true;
    }
    return false;
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (process.argv.includes("--if-stale")) await ensureServerBundle();
  else await buildServer();
}
