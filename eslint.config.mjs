import { defineConfig, globalIgnores } from "eslint/config";
import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";

/**
 * The storage seam (docs/storage.md): outside db/, nothing touches a database driver, SQL, the
 * queue's tables or an engine-specific module; data goes through `deps.store` and row types come
 * from `@/db/types`. Tests may reach into db/ for assertions; benchmarks may read engine counters.
 */
const storagePatterns = [
  {
    group: ["drizzle-orm", "drizzle-orm/*", "better-sqlite3", "pg", "ioredis", "bullmq"],
    message: "Drivers, SQL and queues live behind the store in db/ (see db/store.ts).",
  },
  { group: ["@/db/schema", "@/db/schema/*"], allowTypeImports: true, message: "Use row types from @/db/types; data goes through the store." },
  {
    group: ["@/db/client", "@/db/prepared", "@/db/sqlite/*", "@/db/pg/*", "@/db/queue/bullmq", "@/db/stores/*"],
    allowTypeImports: true,
    message: "Engine-specific code stays in db/; use the store.",
  },
];
const noClient = { selector: "MemberExpression[property.name='$client']", message: "The raw SQLite connection stays in db/." };
/** The runner and the services know each other only through the hooks passed at start (server/runner-hooks.ts). */
const runnerPatterns = [
  { group: ["**/services/*", "@/server/services/*"], message: "The runner reaches services only through RunnerHooks (server/runner/hooks.ts)." },
];
const servicePatterns = [
  {
    group: ["**/runner/*", "@/server/runner/*"],
    message: "Services do not import the runner; shared pieces live in server/graphs.ts, server/run-signals.ts, server/usage-counters.ts.",
  },
];

export default defineConfig([
  ...nextVitals,
  ...nextTs,
  {
    rules: {
      "@typescript-eslint/no-explicit-any": "warn",
      "@typescript-eslint/no-unused-vars": ["warn", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  {
    files: ["**/*.ts", "**/*.tsx", "**/*.mjs"],
    ignores: ["db/**", "bench/**", "**/*.test.ts", "**/*.test.tsx", "drizzle*.config.ts", "vitest.global-setup.ts"],
    rules: {
      "@typescript-eslint/no-restricted-imports": ["error", { patterns: storagePatterns }],
      "no-restricted-syntax": ["error", noClient],
    },
  },
  {
    files: ["server/runner/**/*.ts"],
    ignores: ["**/*.test.ts", "server/runner/testing/**"],
    rules: { "@typescript-eslint/no-restricted-imports": ["error", { patterns: [...storagePatterns, ...runnerPatterns] }] },
  },
  {
    files: ["server/services/**/*.ts"],
    ignores: ["**/*.test.ts"],
    rules: { "@typescript-eslint/no-restricted-imports": ["error", { patterns: [...storagePatterns, ...servicePatterns] }] },
  },
  {
    // server/contracts is imported by the browser: keep server-only modules out of it.
    files: ["server/contracts/**/*.ts", "components/**/*.tsx"],
    rules: {
      "@typescript-eslint/no-restricted-imports": [
        "error",
        {
          patterns: [
            { group: ["@/db/*", "@/server/services/*", "@/server/runner/*"], message: "Browser code and contracts take nothing from the server's internals." },
            ...storagePatterns,
          ],
        },
      ],
    },
  },
  {
    // Playwright fixtures call a `use` callback that is not React's hook.
    files: ["e2e/**/*.ts"],
    rules: { "react-hooks/rules-of-hooks": "off" },
  },
  globalIgnores([
    ".next*/**",
    "node_modules/**",
    "data/**",
    "db/migrations/**",
    "db/migrations-pg/**",
    "next-env.d.ts",
    ".ci-out/**",
    "test-results/**",
    "dist/**",
  ]),
]);
