/**
 * The configuration docs against the code: every variable `server/env.ts` parses is in the README's
 * configuration table and in `.env.example`, the table names nothing the code does not read, and
 * every variable read anywhere else (scripts, test harnesses) is named in the README or docs/ as
 * test-only or tool-specific. Reads env.ts as text: tests never import it (it parses process.env).
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(__dirname, "..");
const read = (f: string) => fs.readFileSync(path.join(ROOT, f), "utf8");
const ENV_TS = read("server/env.ts");
const README = read("README.md");
const DOCS = [
  README,
  ...fs
    .readdirSync(path.join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => read(`docs/${f}`)),
].join("\n");

/** Keys of the EnvSchema object literal (two-space indented `NAME:` lines). */
const schemaKeys = [
  ...ENV_TS.split("const EnvSchema = z.object({")[1]!
    .split("\n});")[0]!
    .matchAll(/^ {2}([A-Z][A-Z0-9_]+):/gm),
].map((m) => m[1]!);
/** What clientEnv() and secretFromEnv() read for the command line as an API client. */
const clientKeys = [...(ENV_TS.split("export function clientEnv()")[1] ?? "").matchAll(/\be\.([A-Z][A-Z0-9_]+)/g)].map((m) => m[1]!);

/** Names in the first column of the README's configuration table (`A`, `B` / `C`, …). */
function tableNames(): string[] {
  const table = README.split("## Configuration")[1]!.split("\n### ")[0]!;
  return table
    .split("\n")
    .filter((l) => l.startsWith("| `"))
    .flatMap((l) => [...l.split("|")[1]!.matchAll(/`([A-Z][A-Z0-9_<>]+)`/g)].map((m) => m[1]!));
}

/** process.env reads in source that is not a test, a test harness child, a benchmark or an e2e spec. */
function readsOutsideTests(): Map<string, string> {
  const found = new Map<string, string>();
  const skip = (p: string) => /(^|\/)(node_modules|\.next[^/]*|dist|bench|e2e|testing|chaos)(\/|$)/.test(p) || /\.test\.tsx?$/.test(p);
  const walk = (rel: string) => {
    for (const ent of fs.readdirSync(path.join(ROOT, rel), { withFileTypes: true })) {
      const p = rel ? `${rel}/${ent.name}` : ent.name;
      if (ent.name.startsWith(".") || skip(p)) continue;
      if (ent.isDirectory()) {
        if (rel || ["server", "db", "integrations", "app", "components", "scripts", "bin", "lib"].includes(ent.name)) walk(p);
      } else if (/\.(ts|tsx|mjs|js)$/.test(ent.name)) {
        for (const m of read(p).matchAll(/process\.env\.([A-Za-z_][A-Za-z0-9_]*)/g)) if (!found.has(m[1]!)) found.set(m[1]!, p);
      }
    }
  };
  walk("");
  return found;
}

/** Not Conveyor settings: Node's, Next's and the shell's own, or set by Conveyor for itself. */
const NOT_SETTINGS = new Set(["PATH", "CI", "NODE_COMPILE_CACHE", "NEXT_TELEMETRY_DISABLED", "__NEXT_PRIVATE_STANDALONE_CONFIG", "CONVEYOR_CWD", "npm_command"]);

/**
 * Server code (not tests, test harnesses or benches) that reads process.env other than server/env.ts,
 * as `file: NAME`. Assignments (handing a value to a library) are not reads.
 */
function serverReadsOutsideEnvTs(): string[] {
  const found: string[] = [];
  const skip = (p: string) => /(^|\/)(node_modules|testing|bench|e2e|chaos)(\/|\.ts$|$)/.test(p) || /\.test\.tsx?$/.test(p) || p === "server/env.ts";
  const walk = (rel: string) => {
    for (const ent of fs.readdirSync(path.join(ROOT, rel), { withFileTypes: true })) {
      const p = `${rel}/${ent.name}`;
      if (ent.name.startsWith(".") || skip(p)) continue;
      if (ent.isDirectory()) walk(p);
      else if (/\.(ts|tsx)$/.test(ent.name))
        for (const m of read(p).matchAll(/process\.env(?:\.([A-Za-z_][A-Za-z0-9_]*)(?![A-Za-z0-9_])|\[|\b(?!\.))(?!\s*=[^=])/g))
          found.push(`${p}: ${m[1] ?? "(whole environment)"}`);
    }
  };
  for (const top of ["server", "db", "integrations", "app", "components"]) walk(top);
  return found;
}

describe("configuration docs", () => {
  it("reads the environment only in server/env.ts (server code; scripts, tests and benches aside)", () => {
    // Next.js's own hand-over of its built config, which main.ts sets for Next (not a Conveyor setting).
    const allowed = ["server/main.ts: __NEXT_PRIVATE_STANDALONE_CONFIG"];
    expect(serverReadsOutsideEnvTs().filter((r) => !allowed.includes(r))).toEqual([]);
  });

  it("finds the schema (a guard for the parsing above)", () => {
    expect(schemaKeys).toContain("DATABASE_URL");
    expect(schemaKeys.length).toBeGreaterThan(30);
    expect(clientKeys).toContain("CONVEYOR_URL");
  });

  it("documents every variable server/env.ts parses in the README's configuration table", () => {
    const names = new Set(tableNames());
    expect(schemaKeys.filter((k) => !names.has(k))).toEqual([]);
  });

  it("lists nothing in the table that the code does not read", () => {
    const read = new Set([...schemaKeys, ...clientKeys, "SKIP_ENV_VALIDATION", "CONVEYOR_SECRET_<NAME>"]);
    expect(tableNames().filter((n) => !read.has(n))).toEqual([]);
  });

  it("shows every server setting in .env.example", () => {
    const example = read(".env.example");
    // NODE_ENV is set by npm start / npm run dev; AUTH_SECRET is NEXTAUTH_SECRET's other name.
    const missing = schemaKeys.filter((k) => !["NODE_ENV", "AUTH_SECRET"].includes(k) && !new RegExp(`^# ${k}=`, "m").test(example));
    expect(missing).toEqual([]);
  });

  it("names every other variable the code reads in the README or docs/", () => {
    const undocumented = [...readsOutsideTests()]
      .filter(([name]) => !NOT_SETTINGS.has(name) && !schemaKeys.includes(name) && !new RegExp(`\`${name}(?![A-Z0-9_])`).test(DOCS))
      .map(([name, file]) => `${name} (${file})`);
    expect(undocumented).toEqual([]);
  });
});
