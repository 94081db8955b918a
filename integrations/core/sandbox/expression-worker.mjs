// Worker process entry of the expression pool (pool.ts): evaluates one JSONata expression per
// message and answers with its result as JSON text. The pool owns the hard limits: it kills this
// process when an evaluation runs past its wall time, and V8 ends it at its heap limit
// (--max-old-space-size). It starts with no environment and Node's permission model; bindings
// arrive as JSON text.
import { evaluateToJson } from "./evaluate-core.mjs";

// CPU seconds used so far: the pool retires a worker long before its kernel CPU limit.
const cpuS = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

process.on("message", async (task) => {
  try {
    const bindings = JSON.parse(task.bindings);
    const json = await evaluateToJson(task.source, bindings, task.timeoutMs);
    process.send({ id: task.id, ok: true, json, cpuS: cpuS() });
  } catch (e) {
    process.send({ id: task.id, ok: false, message: e?.message ?? String(e), stopped: Boolean(e?.stopped), cpuS: cpuS() });
  }
});
// The parent going away (crash, SIGKILL) closes the channel: leave with it.
process.on("disconnect", () => process.exit(0));
process.send({ ready: true });
