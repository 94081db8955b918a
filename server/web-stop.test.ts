/**
 * The web process stops on SIGTERM after a rebuild replaced its server bundle (`npm run build`, or any
 * `npx conveyor …` in the checkout, rebuilds dist/server into a fresh directory and removes the old
 * one). Before, its stop loaded a module lazily from the removed bundle, failed, and the process went
 * on serving until killed. Needs the Next build (NEXT_DIST_DIR, default .next; `npm test` runs this
 * again after `next build`).
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, it } from "vitest";
import { freePort } from "@/db/testing/servers";
import { childEnv, get, until } from "./roles/testing/processes";

const ROOT = path.resolve(import.meta.dirname, "..");
const DIST = process.env.NEXT_DIST_DIR ?? ".next";
const BUILT = fs.existsSync(path.join(ROOT, DIST, "BUILD_ID"));

it.skipIf(!BUILT)(
  "stops on SIGTERM once the server bundle it runs from was replaced",
  async () => {
    // The server bundle as scripts/build-server.mjs makes it (split into chunks), in a folder of its own under dist/.
    const { bundleOptions } = (await import(path.join(ROOT, "scripts", "build-server.mjs"))) as {
      bundleOptions(outdir: string, entries?: Record<string, string>): import("esbuild").BuildOptions;
    };
    const esbuild = await import("esbuild");
    const out = path.join(ROOT, "dist", `stop-test-${process.pid}-${Date.now()}`);
    const data = fs.mkdtempSync(path.join(os.tmpdir(), "conveyor-web-stop-"));
    try {
      await esbuild.build(bundleOptions(out, { main: "server/main.ts" }));
      fs.writeFileSync(path.join(out, "package.json"), JSON.stringify({ type: "module" }));
      const port = await freePort();
      const child = spawn(process.execPath, [path.join(out, "main.mjs")], {
        cwd: ROOT,
        env: childEnv({
          PORT: String(port),
          NEXT_DIST_DIR: DIST,
          DATABASE_URL: path.join(data, "conveyor.db"),
          CONVEYOR_DATA_DIR: data,
          CONVEYOR_SECRET_KEY: randomBytes(32).toString("base64"),
          NEXTAUTH_SECRET: randomBytes(32).toString("base64url"),
        }),
        stdio: ["ignore", "pipe", "pipe"],
      });
      let output = "";
      for (const s of [child.stdout, child.stderr]) s.on("data", (d: Buffer) => (output += d.toString()));
      const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
      const web = { child, base: `http://127.0.0.1:${port}`, output: () => output, stop: async () => undefined };
      try {
        await until(web, `${web.base}/api/health/ready`, (a) => a.status === 200, "web ready", 120_000);
        // What a rebuild does to the running server's files.
        fs.rmSync(out, { recursive: true, force: true });
        child.kill("SIGTERM");
        const code = await Promise.race([exited, new Promise<"still running">((r) => setTimeout(() => r("still running"), 30_000))]);
        expect(code, output).toBe(0);
        expect(output).toContain("SIGTERM: stopping");
        await expect(get(`${web.base}/api/health`, 1000)).rejects.toThrow();
      } finally {
        child.kill("SIGKILL");
      }
    } finally {
      fs.rmSync(out, { recursive: true, force: true });
      fs.rmSync(data, { recursive: true, force: true });
    }
  },
  180_000,
);
