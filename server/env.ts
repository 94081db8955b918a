/**
 * The only reader of process.env. Parsed once; a bad value fails `next build` and start-up with a
 * message naming the variable. Everything else receives configuration as arguments.
 * Every variable is documented in README.md ("Configuration").
 */
import path from "node:path";
import proxyaddr from "proxy-addr";
import { z } from "zod";

const bool = z.enum(["1", "0", "true", "false", "yes", "no", "on", "off"]).transform((v) => ["1", "true", "yes", "on"].includes(v));

const EnvSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  PORT: z.coerce.number().int().min(1).max(65535).default(3000),
  HOST: z.string().default("127.0.0.1"),
  /** Public base URL used in webhook URLs and OAuth redirects (default http://localhost:PORT). */
  CONVEYOR_PUBLIC_URL: z.url().optional(),
  CONVEYOR_DATA_DIR: z.string().default("./data"),
  /** SQLite file path (or file: URL), default <CONVEYOR_DATA_DIR>/conveyor.db; or postgres://… (scale-out mode). */
  DATABASE_URL: z.string().optional(),
  /** redis://… : BullMQ on Redis distributes the work (scale-out mode; required with a PostgreSQL DATABASE_URL); never an egress destination. */
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, "must be a redis:// or rediss:// URL")
    .optional(),
  /**
   * Key prefix of the work queue in Redis (scale-out mode). Every process of one installation must use
   * the same; installations sharing one Redis must use different ones (a worker would otherwise take
   * another installation's jobs, find no such run in its database and drop them).
   */
  CONVEYOR_QUEUE_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_.:-]{1,64}$/, "letters, digits, _ . : - (at most 64)")
    .default("conveyor"),
  /** PostgreSQL connections per process (scale-out mode). */
  CONVEYOR_PG_POOL_MAX: z.coerce.number().int().min(2).max(200).default(10),
  /** Opening a PostgreSQL connection or waiting for a free one (default 5000; ingress processes 2000). */
  CONVEYOR_PG_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).optional(),
  /** PostgreSQL statement_timeout; the client gives up on an unanswered query shortly after (default 30000; ingress processes 3000). */
  CONVEYOR_PG_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).optional(),
  /** Port of `conveyor ingress` when --port is not given. */
  CONVEYOR_INGRESS_PORT: z.coerce.number().int().min(1).max(65535).default(3001),
  /** Port of the health/readiness/metrics listener of `conveyor worker` (none when unset and --port is not given). */
  CONVEYOR_WORKER_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  /**
   * Proxies whose X-Forwarded-For is believed (comma-separated addresses, CIDRs or `loopback`,
   * `linklocal`, `uniquelocal`); unset: the socket's address is the client's.
   */
  CONVEYOR_TRUST_PROXY: z
    .string()
    .default("")
    .transform((v) =>
      v
        .split(",")
        .map((x) => x.trim())
        .filter(Boolean),
    )
    .refine((list) => {
      try {
        proxyaddr.compile(list);
        return true;
      } catch {
        return false;
      }
    }, "a comma-separated list of IP addresses, CIDRs, loopback, linklocal or uniquelocal"),
  /** Default of the egress policy's private-network rule until an admin saves one in Settings. */
  CONVEYOR_EGRESS_PRIVATE_NETWORKS: z.enum(["allow", "refuse"]).default("allow"),
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
  CONVEYOR_RUNNER_CONCURRENCY: z.coerce.number().int().min(1).max(1024).default(256),
  /** How long a runner's claim on a step lasts without renewal (renewed every third): a dead runner's work resumes elsewhere after about this (scale-out: up to twice). */
  CONVEYOR_RUNNER_LEASE_MS: z.coerce.number().int().min(3000).max(600_000).default(30_000),
  CONVEYOR_WEBHOOK_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(1024 * 1024),
  /** A delivery whose commit has not started within this answers 503 with Retry-After (never 202); one whose commit is pending waits CONVEYOR_WEBHOOK_OUTCOME_GRACE_MS more. */
  CONVEYOR_WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(500).max(120_000).default(10_000),
  /** How long past the webhook timeout a pending or unanswered commit may take to settle (checked on a fresh connection); after that the delivery gets no answer (the connection is closed). */
  CONVEYOR_WEBHOOK_OUTCOME_GRACE_MS: z.coerce.number().int().min(0).max(120_000).default(5000),
  /** How far a timestamped webhook signature's time may be from this server's clock, either way (a webhook may set its own). */
  CONVEYOR_WEBHOOK_SIGNATURE_TOLERANCE_S: z.coerce.number().int().min(5).max(3600).default(300),
  CONVEYOR_API_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(1024 * 1024),
  CONVEYOR_API_RATE_LIMIT: z.coerce.number().int().min(1).default(1200),
  CONVEYOR_RUN_RETENTION_DAYS: z.coerce.number().int().min(1).default(30),
  CONVEYOR_RUN_RETENTION_COUNT: z.coerce.number().int().min(100).default(10_000),
  /** Hard wall time of one `{{ }}` expression evaluated in a worker process. */
  CONVEYOR_EXPRESSION_TIMEOUT_MS: z.coerce.number().int().min(50).max(60_000).default(1000),
  /** Heap limit of each expression worker process (MB). */
  CONVEYOR_EXPRESSION_MAX_HEAP_MB: z.coerce.number().int().min(16).max(4096).default(64),
  /** Expression worker processes at most, per Conveyor process. */
  CONVEYOR_EXPRESSION_WORKERS: z.coerce.number().int().min(1).max(64).default(2),
  /**
   * V8's heap growing factor as a percentage over the live heap (V8 itself lets the heap grow up to 4×
   * its live size under a burst). 0 leaves V8's own choice. See server/memory-reducer.ts.
   */
  CONVEYOR_HEAP_GROWING_PERCENT: z.coerce.number().int().min(0).max(300).default(100),
  /** 0 turns off giving memory back after a burst (server/memory-reducer.ts). */
  CONVEYOR_MEMORY_REDUCER: bool.default(true),
  /** A step whose worker stopped this many times while running it fails its run instead of resuming. */
  CONVEYOR_STEP_QUARANTINE_AFTER: z.coerce.number().int().min(1).max(100).default(3),
  CONVEYOR_SYNCHRONOUS: z.enum(["NORMAL", "FULL"]).default("NORMAL"),
  /** Next.js build output folder (default .next). */
  NEXT_DIST_DIR: z.string().default(".next"),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error", "silent"]).default("info"),
});

export interface ServiceEndpoint {
  host: string;
  port: number;
  label: string;
}

export type Env = z.infer<typeof EnvSchema> & {
  dataDir: string;
  /** SQLite file path, or the PostgreSQL URL in scale-out mode. */
  databasePath: string;
  scaleOut: boolean;
  publicUrl: string;
  /** host:port pairs the service itself listens on or uses (own HTTP port, PostgreSQL, Redis): never egress destinations. */
  serviceEndpoints: ServiceEndpoint[];
};

function endpointOf(url: string | undefined, protocols: Record<string, number>, label: string): ServiceEndpoint[] {
  if (!url) return [];
  try {
    const u = new URL(url);
    const port = protocols[u.protocol];
    if (port === undefined || !u.hostname) return [];
    return [{ host: u.hostname.replace(/^\[|\]$/g, ""), port: Number(u.port) || port, label }];
  } catch {
    return [];
  }
}

function parseEnv(source: NodeJS.ProcessEnv): Env {
  if (source.SKIP_ENV_VALIDATION) return parseEnv({} as NodeJS.ProcessEnv);
  const parsed = EnvSchema.safeParse(source);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`).join("\n");
    throw new Error(`Invalid environment variables:\n${lines}`);
  }
  const e = parsed.data;
  const dataDir = path.resolve(e.CONVEYOR_DATA_DIR);
  const scaleOut = /^postgres(ql)?:\/\//i.test(e.DATABASE_URL ?? "");
  if (scaleOut && !e.REDIS_URL) throw new Error("Invalid environment variables:\n  REDIS_URL: required when DATABASE_URL is a PostgreSQL URL (scale-out mode)");
  if (scaleOut && !e.CONVEYOR_SECRET_KEY)
    throw new Error("Invalid environment variables:\n  CONVEYOR_SECRET_KEY: required in scale-out mode (every process must share the same key)");
  if (scaleOut && !(e.NEXTAUTH_SECRET ?? e.AUTH_SECRET))
    throw new Error("Invalid environment variables:\n  NEXTAUTH_SECRET: required in scale-out mode (every web process must share it)");
  if (e.REDIS_URL && !scaleOut) throw new Error("Invalid environment variables:\n  REDIS_URL: only used with a PostgreSQL DATABASE_URL (scale-out mode)");
  const rawDb = e.DATABASE_URL?.replace(/^file:/, "");
  const databasePath = scaleOut ? e.DATABASE_URL! : rawDb ? path.resolve(rawDb) : path.join(dataDir, "conveyor.db");
  // NEXTAUTH_URL may name next-auth's base path; the public URL is the site's root.
  const publicUrl = (e.CONVEYOR_PUBLIC_URL ?? e.NEXTAUTH_URL?.replace(/\/api\/auth\/?$/, "") ?? `http://localhost:${e.PORT}`).replace(/\/+$/, "");
  const serviceEndpoints: ServiceEndpoint[] = [
    { host: e.HOST, port: e.PORT, label: "this service's own port" },
    ...endpointOf(e.DATABASE_URL, { "postgres:": 5432, "postgresql:": 5432 }, "the PostgreSQL server this service uses"),
    ...endpointOf(e.REDIS_URL, { "redis:": 6379, "rediss:": 6379 }, "the Redis server this service uses"),
  ];
  return { ...e, dataDir, databasePath, scaleOut, publicUrl, serviceEndpoints };
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

/**
 * The npm command that launched this process, when npm did (`npx …`: "exec", `npm run …`: "run-script";
 * npm sets `npm_command`). Not a Conveyor setting: the role processes use it to notice their launcher
 * going away (server/cli/commands.ts).
 */
export function launchedByNpm(): string | undefined {
  return process.env.npm_command || undefined;
}
