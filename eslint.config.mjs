import { defineConfig, globalIgnores } from "eslint/config";
import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";

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
    // server/contracts is imported by the browser: keep server-only modules out of it.
    files: ["server/contracts/**/*.ts", "components/**/*.tsx"],
    rules: {
      "no-restricted-imports": ["error", { patterns: ["@/db/*", "better-sqlite3", "@/server/services/*", "@/server/runner/*"] }],
    },
  },
  {
    // Playwright fixtures call a `use` callback that is not React's hook.
    files: ["e2e/**/*.ts"],
    rules: { "react-hooks/rules-of-hooks": "off" },
  },
  globalIgnores([".next*/**", "node_modules/**", "data/**", "db/migrations/**", "next-env.d.ts", ".ci-out/**", "test-results/**"]),
]);
