/** Spec files on disk: reading a folder, writing an export, and where they come from in Git. */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import type { Bundle, ResourceKind } from "../../contracts/as-code";
import { canonicalApp, canonicalIntake, canonicalLine } from "../../as-code/canonical";
import { buildFilesJsonSchema } from "../../as-code/json-schema";
import { configSchemaFor } from "../../as-code/units";
import { FOLDERS, SCHEMA_FILE, toYaml } from "../../as-code/yaml-files";

const SKIP = new Set(["node_modules", ".git"]);

/** Every `*.yaml` / `*.yml` under `dir`, sorted; `file` is shown relative to `cwd`. */
export function readSpecFiles(dir: string, cwd: string): Array<{ file: string; abs: string; text: string }> {
  if (!fs.existsSync(dir)) throw new Error(`${path.relative(cwd, dir) || dir}: no such folder`);
  const out: Array<{ file: string; abs: string; text: string }> = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (e.name.startsWith(".") || SKIP.has(e.name)) continue;
      const abs = path.join(d, e.name);
      if (e.isDirectory()) walk(abs);
      else if (/\.ya?ml$/i.test(e.name)) out.push({ file: path.relative(cwd, abs) || e.name, abs, text: fs.readFileSync(abs, "utf8") });
    }
  };
  if (fs.statSync(dir).isFile()) out.push({ file: path.relative(cwd, dir), abs: dir, text: fs.readFileSync(dir, "utf8") });
  else walk(dir);
  return out;
}

/** The files of a bundle: `automations/<key>.yaml`, `lines/<key>.yaml`, `intakes/<key>.yaml` and the JSON Schema. */
export function bundleFiles(bundle: Bundle): Map<string, string> {
  const files = new Map<string, string>();
  for (const a of bundle.apps) files.set(`${FOLDERS.automation}/${a.key}.yaml`, toYaml("automation", canonicalApp(a, configSchemaFor)));
  for (const l of bundle.lines) files.set(`${FOLDERS.line}/${l.key}.yaml`, toYaml("line", canonicalLine(l)));
  for (const t of bundle.intakes) files.set(`${FOLDERS.intake}/${t.key}.yaml`, toYaml("intake", canonicalIntake(t)));
  files.set(SCHEMA_FILE, JSON.stringify(buildFilesJsonSchema(), null, 2) + "\n");
  return files;
}

const KINDS = new Set<ResourceKind>(["automation", "line", "intake"]);

/** Writes the export; removes spec files of resources that no longer exist (files of ours only, by `kind`). */
export function writeExport(outDir: string, bundle: Bundle): { written: number; removed: string[] } {
  const files = bundleFiles(bundle);
  const removed: string[] = [];
  for (const folder of Object.values(FOLDERS)) {
    const d = path.join(outDir, folder);
    if (!fs.existsSync(d)) continue;
    for (const name of fs.readdirSync(d)) {
      const rel = `${folder}/${name}`;
      if (!/\.ya?ml$/.test(name) || files.has(rel)) continue;
      let kind: unknown;
      try {
        kind = (parse(fs.readFileSync(path.join(d, name), "utf8")) as { kind?: unknown } | null)?.kind;
      } catch {
        continue;
      }
      if (KINDS.has(kind as ResourceKind)) {
        fs.rmSync(path.join(d, name));
        removed.push(rel);
      }
    }
  }
  for (const [rel, text] of files) {
    const abs = path.join(outDir, rel);
    fs.mkdirSync(path.dirname(abs), { recursive: true });
    fs.writeFileSync(abs, text);
  }
  return { written: files.size - 1, removed };
}

function git(cwd: string, args: string[]): string | null {
  try {
    return execFileSync("git", args, { cwd, stdio: ["ignore", "pipe", "ignore"], encoding: "utf8" }).trim() || null;
  } catch {
    return null;
  }
}

/** Repository, commit (`-dirty` when the folder has uncommitted changes) and each file's path in the repository. */
export function gitSource(dir: string, cwd: string, given: { repository?: string; commit?: string }) {
  const root = git(dir, ["rev-parse", "--show-toplevel"]);
  let commit = given.commit ?? null;
  if (!commit && root) {
    const head = git(dir, ["rev-parse", "--short=12", "HEAD"]);
    commit = head && git(dir, ["status", "--porcelain", "--", "."]) ? `${head}-dirty` : head;
  }
  // Never record credentials that a remote URL may carry (https://user:token@host/…).
  const remote = root ? git(dir, ["remote", "get-url", "origin"])?.replace(/\/\/[^/@]*@/, "//") : null;
  return {
    repository: given.repository ?? remote ?? undefined,
    commit: commit ?? undefined,
    pathOf: (abs: string) =>
      path
        .relative(root ?? cwd, abs)
        .split(path.sep)
        .join("/"),
  };
}
