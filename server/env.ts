/**
 * The only reader of process.env. Parsed once; a bad value fails `next build` and start-up with a
 * message naming the variable. Everything else receives configuration as arguments.
 * Every variable is documented in README.md ("Configuration").
 */
import path from "node:path";
import { z } from "zod";

const bool = z
  .enum(["1", "0", "true", "false", "yes", "no", "on", "off"])
  .transform((v) => ["1", "true", "yes", "on"].includes(v));

const EnvSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  PORT: z.coerce.number().int().min(1).max(65535).default(3000),
  HOST: z.string().default("127.0.0.1"),
  /** Public base URL used in webhook URLs and OAuth redirects (default http://localhost:PORT). */
  CONVEYOR_PUBLIC_URL: z.url().optional(),
  CONVEYOR_DATA_DIR: z.string().default("./data"),
  /** SQLite file path (or file: URL); default <CONVEYOR_DATA_DIR>/conveyor.db. */
  DATABASE_URL: z.string().optional(),
  /** 32-byte key, base64 or hex. Generated into the data dir when unset. */
  CONVEYOR_SECRET_KEY: z.string().optional(),
  /** next-auth signing secret; generated into the data dir when unset. */
  NEXTAUTH_SECRET: z.string().optional(),
  AUTH_SECRET: z.string().optional(),
  NEXTAUTH_URL: z.url().optional(),
  OIDC_ISSUER: z.url().optional(),
  OIDC_CLIENT_ID: z.string().optional(),
  OIDC_CLIENT_SECRET: z.string().optional(),
  OIDC_NAME: z.string().default("Single sign-on"),
  /** Run the runner inside the web process (default on); set 0 when only `npm run worker` processes should run it. */
  CONVEYOR_RUNNER: bool.default(true),
  CONVEYOR_RUNNER_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(64),
  CONVEYOR_WEBHOOK_MAX_BYTES: z.coerce.number().int().min(1024).default(1024 * 1024),
  CONVEYOR_API_MAX_BYTES: z.coerce.number().int().min(1024).default(1024 * 1024),
  CONVEYOR_API_RATE_LIMIT: z.coerce.number().int().min(1).default(1200),
  CONVEYOR_RUN_RETENTION_DAYS: z.coerce.number().int().min(1).default(30),
  CONVEYOR_RUN_RETENTION_COUNT: z.coerce.number().int().min(100).default(10_000),
  CONVEYOR_SYNCHRONOUS: z.enum(["NORMAL", "FULL"]).default("NORMAL"),
  /** Next.js build output folder (default .next). */
  NEXT_DIST_DIR: z.string().default(".next"),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error", "silent"]).default("info"),
});

export type Env = z.infer<typeof EnvSchema> & { dataDir: string; databasePath: string; publicUrl: string };

function parseEnv(source: NodeJS.ProcessEnv): Env {
  if (source.SKIP_ENV_VALIDATION) return parseEnv({} as NodeJS.ProcessEnv);
  const parsed = EnvSchema.safeParse(source);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`).join("\n");
    throw new Error(`Invalid environment variables:\n${lines}`);
  }
  const e = parsed.data;
  const dataDir = path.resolve(e.CONVEYOR_DATA_DIR);
  const rawDb = e.DATABASE_URL?.replace(/^file:/, "");
  const databasePath = rawDb ? path.resolve(rawDb) : path.join(dataDir, "conveyor.db");
  const publicUrl = (e.CONVEYOR_PUBLIC_URL ?? e.NEXTAUTH_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, "");
  return { ...e, dataDir, databasePath, publicUrl };
}

export const env: Env = parseEnv(process.env);

/**
 * Settings of the command line as an API client (`conveyor export|plan|apply`; docs/automations-as-code.md)
 * and CI facts it records with an apply. Read on demand: they matter only to those commands.
 */
export function clientEnv() {
  const e = process.env;
  return {
    url: e.CONVEYOR_URL,
    apiKey: e.CONVEYOR_API_KEY,
    workspace: e.CONVEYOR_WORKSPACE,
    /** The directory `npx conveyor` was started from (bin/conveyor.mjs runs the CLI from the checkout). */
    cwd: e.CONVEYOR_CWD ?? process.cwd(),
    commit: e.GITHUB_SHA ?? e.CI_COMMIT_SHA,
    repository: e.GITHUB_REPOSITORY ? `${e.GITHUB_SERVER_URL ?? "https://github.com"}/${e.GITHUB_REPOSITORY}` : e.CI_PROJECT_URL,
    githubActions: e.GITHUB_ACTIONS === "true",
  };
}

/** The value of a secret reference at apply time: `CONVEYOR_SECRET_<NAME>` (see secretEnvName). */
export function secretFromEnv(envName: string): string | undefined {
  const v = process.env[envName];
  return v === undefined || v === "" ? undefined : v;
}
