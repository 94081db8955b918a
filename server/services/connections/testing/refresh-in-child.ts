/**
 * Body of the child processes in the cross-process refresh tests: at START_AT (epoch ms) it loads
 * CONNECTION_ID from the shared SQLite file DB_FILE (key SECRET_HEX) and prints `token <access token>`
 * or `error <message>`. Callers register the integration they test first.
 */
import { openDb } from "@/db/client";
import { createSecretBox } from "../../../crypto/secret-box";
import { silentLogger } from "../../../logger";
import { loadConnectionHandle } from "../load-connection";

export function refreshInChild(): void {
  const db = openDb(process.env.DB_FILE!);
  const deps = { db, box: createSecretBox(Buffer.from(process.env.SECRET_HEX!, "hex")), publicUrl: "http://x", log: silentLogger, now: () => new Date() };
  setTimeout(async () => {
    try {
      const handle = await loadConnectionHandle(deps, process.env.CONNECTION_ID!);
      process.stdout.write(`token ${await handle.oauth!.getAccessToken()}\n`);
      db.$client.close();
      process.exit(0);
    } catch (e) {
      process.stdout.write(`error ${(e as Error).message}\n`);
      process.exit(1);
    }
  }, Math.max(0, Number(process.env.START_AT) - Date.now()));
}
