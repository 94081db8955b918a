/**
 * `conveyor migrate-to-postgres --from <sqlite file> --to <postgres url> [--dry-run]`: the command
 * around db/migrate-to-postgres (the copy itself): defaults, the table of counts, and the exact next
 * steps (scale-out settings, the secret key the encrypted values need). Never prints a secret: key
 * files are named, not shown, and the target URL's password is masked.
 */
import fs from "node:fs";
import path from "node:path";
import { migrateToPostgres, type MigrationReport } from "@/db/migrate-to-postgres";
import { createSecretBox, parseKey } from "../crypto/secret-box";
import type { Env } from "../env";

export interface MigrateArgs {
  from?: string;
  to?: string;
  dryRun?: boolean;
}

type Out = { log: (s: string) => void; err: (s: string) => void };
const stdio: Out = { log: (s) => console.log(s), err: (s) => console.error(s) };

export async function migrateToPostgresCommand(
  args: MigrateArgs,
  env: Pick<Env, "scaleOut" | "databasePath" | "dataDir" | "CONVEYOR_SECRET_KEY" | "NEXTAUTH_SECRET" | "AUTH_SECRET" | "REDIS_URL">,
  out: Out = stdio,
): Promise<number> {
  if (!args.to) throw new Error("migrate-to-postgres needs --to postgres://user:password@host:5432/database (an existing, empty database)");
  if (!/^postgres(ql)?:\/\//i.test(args.to)) throw new Error("--to must be a postgres:// or postgresql:// URL");
  const from = args.from ?? (env.scaleOut ? undefined : env.databasePath);
  if (!from) throw new Error("DATABASE_URL is already a PostgreSQL URL: give the SQLite file to copy with --from <file>");
  if (/^postgres(ql)?:\/\//i.test(from)) throw new Error("--from must be the SQLite file of the installation, not a PostgreSQL URL");

  let last = Date.now();
  const report = await migrateToPostgres({
    from: from.replace(/^file:/, ""),
    to: args.to,
    dryRun: args.dryRun,
    onProgress: ({ table, copied, total }) => {
      if (Date.now() - last < 2000 || copied === total) return;
      last = Date.now();
      out.err(`  ${table}: ${copied.toLocaleString("en")} / ${total.toLocaleString("en")} rows`);
    },
  });

  out.log(`${report.dryRun ? "Dry run: " : ""}${report.from} → ${report.to}`);
  if (report.walBytesAtOpen > 0) {
    out.err(
      `Warning: the SQLite WAL held ${report.walBytesAtOpen.toLocaleString("en")} bytes: the installation did not shut down cleanly. Its committed work was read; no process had the file open.`,
    );
  }
  out.log(countsTable(report));
  if (report.dryRun) {
    if (report.migrationsPending) out.log(`The PostgreSQL migrations (${report.migrationsPending}) would be applied first.`);
    out.log(`${report.leasesReset} step job(s) in flight would be reset to queued; ${report.outboxAdded} run(s) would get an outbox row.`);
    if (report.refusal) {
      out.err(`A real run would be refused: ${report.refusal}`);
      return 1;
    }
    out.log(`Nothing was written. Run again without --dry-run to copy ${report.rows.toLocaleString("en")} rows.`);
    return 0;
  }
  if (!report.committed) {
    out.err(
      "The copy does not match SQLite (see MISMATCH above): it was rolled back, no row was committed to the target database. Find what changes rows on the target (triggers, rules) and run again.",
    );
    return 1;
  }
  out.log(
    `Copied ${report.rows.toLocaleString("en")} rows in ${(report.durationMs / 1000).toFixed(1)} s; row counts and key digests match.` +
      (report.migrationsApplied ? ` Applied ${report.migrationsApplied} PostgreSQL migration(s) first.` : "") +
      (report.identitiesReset ? ` Reset ${report.identitiesReset} identity sequence(s).` : ""),
  );
  out.log(nextSteps(report, from, env));
  return 0;
}

function countsTable(r: MigrationReport): string {
  const w = Math.max(5, ...r.tables.map((t) => t.table.length));
  const num = (n: number | null) => (n === null ? "-" : n.toLocaleString("en")).padStart(12);
  const lines = [`${"table".padEnd(w)} ${"SQLite".padStart(12)} ${"PostgreSQL".padStart(12)}`];
  for (const t of r.tables) {
    const status = t.match === null ? "" : t.match ? "  ok" : "  MISMATCH";
    lines.push(`${t.table.padEnd(w)} ${num(t.sqlite)} ${num(t.postgres)}${status}${t.note ? ` (${t.note})` : ""}`);
  }
  const total = r.tables.every((t) => t.postgres !== null) ? r.tables.reduce((a, t) => a + t.postgres!, 0) : null;
  lines.push(`${"total".padEnd(w)} ${num(r.rows)} ${num(total)}`);
  return lines.join("\n");
}

/** Where the installation's secret key is, and whether it decrypts the copied values. */
function keyAdvice(r: MigrationReport, from: string, env: Pick<Env, "dataDir" | "CONVEYOR_SECRET_KEY">): string {
  const check = (raw: string) => {
    if (!r.encrypted.sample) return "";
    try {
      createSecretBox(parseKey(raw)).decrypt(r.encrypted.sample);
      return ` (checked: it decrypts the copied values)`;
    } catch {
      return ` — WARNING: this key does not decrypt the copied values; find the key the SQLite installation used`;
    }
  };
  if (env.CONVEYOR_SECRET_KEY) return `CONVEYOR_SECRET_KEY=<the same value it has now>${check(env.CONVEYOR_SECRET_KEY)}`;
  const file = [path.join(env.dataDir, "secret.key"), path.join(path.dirname(path.resolve(from)), "secret.key")].find((f) => fs.existsSync(f));
  if (!file) {
    return r.encrypted.count
      ? `CONVEYOR_SECRET_KEY=<the key of the SQLite installation> — WARNING: no secret.key found next to ${from} or in CONVEYOR_DATA_DIR; without it the ${r.encrypted.count} encrypted value(s) cannot be read`
      : "CONVEYOR_SECRET_KEY=<a new 32-byte key: openssl rand -base64 32> (no encrypted values were copied)";
  }
  return `CONVEYOR_SECRET_KEY="$(cat ${file})"${check(fs.readFileSync(file, "utf8"))}`;
}

function authAdvice(from: string, env: Pick<Env, "dataDir" | "NEXTAUTH_SECRET" | "AUTH_SECRET">): string {
  if (env.NEXTAUTH_SECRET ?? env.AUTH_SECRET) return "NEXTAUTH_SECRET=<the same value it has now> (keeps users signed in)";
  const file = [path.join(env.dataDir, "auth.secret"), path.join(path.dirname(path.resolve(from)), "auth.secret")].find((f) => fs.existsSync(f));
  return file ? `NEXTAUTH_SECRET="$(cat ${file})" (keeps users signed in)` : "NEXTAUTH_SECRET=<a new secret: openssl rand -base64 32> (users sign in again)";
}

function nextSteps(
  r: MigrationReport,
  from: string,
  env: Pick<Env, "dataDir" | "CONVEYOR_SECRET_KEY" | "NEXTAUTH_SECRET" | "AUTH_SECRET" | "REDIS_URL">,
): string {
  return [
    "",
    "Next steps:",
    `  1. Keep the SQLite installation stopped. Keep ${from} and its secret.key as a backup; do not start it again (new work would not reach PostgreSQL).`,
    "  2. Set these for every Conveyor process (web, `conveyor ingress` and `conveyor worker`), in the environment or .env (paste file contents there; .env does not run $(…)):",
    `       DATABASE_URL=${r.to}   (with the real password)`,
    `       REDIS_URL=${env.REDIS_URL ?? "redis://<host>:6379"}   (required in scale-out mode)`,
    `       ${keyAdvice(r, from, env)}`,
    `       ${authAdvice(from, env)}`,
    `  3. Start Conveyor (npm start; npx conveyor worker). ${r.outboxAdded ? `${r.outboxAdded} run(s) with queued work are published to Redis on first start` : "No work was in flight"}${r.leasesReset ? `; ${r.leasesReset} step(s) interrupted by the SQLite installation run again` : ""}.`,
    '  See docs/scale-out.md ("Moving from SQLite to PostgreSQL").',
  ].join("\n");
}
