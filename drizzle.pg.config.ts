import { defineConfig } from "drizzle-kit";

/** PostgreSQL migrations (scale-out mode), derived from the same schema source as the SQLite ones. */
export default defineConfig({
  dialect: "postgresql",
  schema: "./db/pg/schema.ts",
  out: "./db/migrations-pg",
  casing: "snake_case",
});
