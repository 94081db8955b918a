/**
 * Body of the child processes in the cross-process refresh tests: at START_AT (epoch ms) it loads
 * CONNECTION_ID from the shared database DB_URL (SQLite file or PostgreSQL URL; key SECRET_HEX) and
 * prints `token <access token>` or `error <message>`. Callers register the integration they test first.
 */
import { openStorage } from "@/db/open";
import { createSecretBox } from "../../../crypto/secret-box";
import { silentLogger } from "../../../logger";
import { depsFromStorage, type AppDeps } from "../../../deps";
import { loadConnectionHandle } from "../load-connection";

export function refreshInChild(): void {
  setTimeout(
    async () => {
      try {
        const storage = await openStorage(process.env.DB_URL!, { migrate: false });
        const deps: AppDeps = await depsFromStorage(
          storage,
          {
            box: createSecretBox(Buffer.from(process.env.SECRET_HEX!, "hex")),
            publicUrl: "http://x",
            log: silentLogger,
            now: () => new Date(),
          },
          { url: process.env.REDIS_URL ?? process.env.CONVEYOR_TEST_REDIS_URL },
        );
        const handle = await loadConnectionHandle(deps, process.env.CONNECTION_ID!);
        process.stdout.write(`token ${await handle.oauth!.getAccessToken()}\n`);
        await storage.store.close();
        process.exit(0);
      } catch (e) {
        process.stdout.write(`error ${(e as Error).message}\n`);
        process.exit(1);
      }
    },
    Math.max(0, Number(process.env.START_AT) - Date.now()),
  );
}
