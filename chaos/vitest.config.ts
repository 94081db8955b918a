/**
 * The chaos suite alone (`npm run chaos`): one file, one process, long deadlines; it starts its own
 * PostgreSQL and Redis (no global setup). The main vitest config excludes chaos/.
 */
import path from "node:path";
import { defineConfig } from "vitest/config";

const root = path.resolve(import.meta.dirname, "..");

export default defineConfig({
  root,
  resolve: { alias: { "@": root } },
  test: {
    include: ["chaos/**/*.test.ts"],
    environment: "node",
    testTimeout: 600_000,
    hookTimeout: 300_000,
    pool: "forks",
    maxWorkers: 1,
    fileParallelism: false,
  },
});
