/** The PostgreSQL run engine (scale-out mode). */
import type { RunEngine } from "../engine";
import type { PgBackend } from "./backend";

export function pgEngine(_backend: PgBackend): RunEngine {
  throw new Error("not yet");
}
