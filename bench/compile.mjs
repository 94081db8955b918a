/**
 * Compiles a bench entry (TypeScript) the way the server bundle is compiled (scripts/build-server.mjs
 * compileOptions: esbuild, packages external), into `bench/<name>.compiled.mjs`. Benches that run server code in
 * their own process (bench/runner.ts, the Conveyor side of bench/ingest.ts) run this output: it is
 * the JavaScript production runs, not a run-time TypeScript loader's (tsx keeps function names with
 * a helper call at every closure it creates; measured: 219–235 µs CPU per 3-step run compiled against
 * 243–263 µs under tsx, same tree, alternated).
 */
import path from "node:path";
import { pathToFileURL } from "node:url";

/** Returns the path of the compiled file. `tree`: the checkout the file belongs to (default: this one). */
export async function compileBench(file, tree = path.resolve(import.meta.dirname, "..")) {
  // This checkout's options, applied to `tree` (a previous build's checkout may predate them).
  const { compileOptions } = await import(pathToFileURL(path.resolve(import.meta.dirname, "..", "scripts", "build-server.mjs")).href);
  const esbuild = await import("esbuild");
  const abs = path.resolve(tree, file);
  // Into bench/ whatever folder the entry is in: a bundle has one `import.meta.dirname`, and the benches'
  // own files (bench/harness.ts reads bench/fixtures) resolve their paths from bench/.
  const out = path.join(tree, "bench", path.basename(abs).replace(/\.ts$/, ".compiled.mjs"));
  await esbuild.build({ ...compileOptions(tree), entryPoints: [abs], outfile: out });
  await esbuild.stop();
  return out;
}
