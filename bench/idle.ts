/** Idle footprint: deps + runner started on a fresh database, nothing to do for a few seconds. */
import { runnerHooks } from "../server/runner-hooks";
import { startRunner } from "@/server/runner/runner-loop";
import { benchDeps, listen } from "./harness";

const { deps, close } = await benchDeps();
const runner = startRunner(deps, runnerHooks(deps), { concurrency: 16 });
const { server } = await listen(deps);
await new Promise((r) => setTimeout(r, 3000));
globalThis.gc?.();
const m = process.memoryUsage();
console.log(JSON.stringify({ bench: "idle", rssMB: Math.round(m.rss / 2 ** 20), heapUsedMB: Math.round(m.heapUsed / 2 ** 20) }));
await runner.stop();
server.close();
close();
process.exit(0);
