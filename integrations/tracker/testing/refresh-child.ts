/**
 * Child process for the cross-process refresh test: loads the tracker connection from the shared SQLite file
 * (real registry, real Atlassian provider against the fake) and prints the access token it obtains.
 *   DB_FILE=… SECRET_HEX=… CONNECTION_ID=… START_AT=<epoch ms> node --import tsx integrations/tracker/testing/refresh-child.ts
 */
import { openDb } from "@/db/client";
import { createSecretBox } from "@/server/crypto/secret-box";
import { silentLogger } from "@/server/logger";
import { loadConnectionHandle } from "@/server/services/connections/load-connection";

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
