/** Child process: loads the connection and prints the access token it gets (cross-process refresh test). */
import { openDb } from "@/db/client";
import { createSecretBox } from "../../../crypto/secret-box";
import { silentLogger } from "../../../logger";
import { loadConnectionHandle } from "../load-connection";
import { registerStubOAuth } from "./stub-oauth";

registerStubOAuth();
const db = openDb(process.env.DB_FILE!);
const deps = { db, box: createSecretBox(Buffer.from(process.env.SECRET_HEX!, "hex")), publicUrl: "http://x", log: silentLogger, now: () => new Date() };
const start = Number(process.env.START_AT);
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
}, Math.max(0, start - Date.now()));
