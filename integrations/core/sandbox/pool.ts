/**
 * A small pool of worker processes that evaluate JSONata expressions away from the main thread,
 * with hard limits the main process enforces: a wall-time limit counted from the moment a worker
 * starts the evaluation (time spent queued behind other expressions does not count) after which
 * that worker is killed, and a V8 heap limit per worker (`--max-old-space-size`) at which V8 stops
 * it. A stopped worker is replaced on demand; idle workers exit after a while.
 *
 * Why processes, not worker threads: a worker thread's `resourceLimits` cannot contain every heap
 * exhaustion. When one allocation overshoots the limit (an array growing past it, e.g.
 * `$count([1..10000000].($ * 2))` under a 64 MB limit), V8 raises a fatal out-of-memory error that
 * aborts the whole process, doors included (reproduced on Node 24). A child process dies alone.
 * Why not piscina (threads, same problem) or a timer around a pool's `run()`: queue time would
 * count, so innocent expressions queued behind slow ones would be killed and blamed.
 *
 * Each worker runs with no environment (no secrets), Node's permission model (no file system
 * beyond its own code and JSONata, no child processes, no threads) and code generation from
 * strings disabled; bindings arrive as JSON text. On Linux/macOS it also gets a kernel CPU-time
 * limit (`ulimit -t`), so a worker orphaned mid-evaluation by a parent that died cannot spin
 * forever (the pool retires workers well before that budget), and a lower scheduling priority
 * (nice 10), so a spinning worker does not take CPU from the HTTP doors.
 */
import { fork, spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

export interface PoolLimits {
  /** Worker processes at most (each costs ~35 MB while alive). */
  workers: number;
  /** Hard wall time of one evaluation. */
  timeoutMs: number;
  /** V8 old-generation heap limit of each worker. */
  maxHeapMb: number;
  /** An idle worker exits after this long. */
  idleMs: number;
}

export type StopReason = "time" | "heap" | "crash";

/** The evaluation was stopped by a limit (its worker was killed or died). */
export class ExpressionStopped extends Error {
  constructor(
    message: string,
    readonly reason: StopReason,
  ) {
    super(message);
    this.name = "ExpressionStopped";
  }
}

/** The evaluation finished with an error inside JSONata (type error, its own time guard…). */
export class ExpressionFailed extends Error {
  constructor(
    message: string,
    readonly stopped: boolean,
  ) {
    super(message);
    this.name = "ExpressionFailed";
  }
}

interface Task {
  id: number;
  source: string;
  bindings: string;
  resolve(json: string | undefined): void;
  reject(e: Error): void;
  signal?: AbortSignal;
  onAbort?: () => void;
}

interface Slot {
  child: ChildProcess;
  ready: boolean;
  gone: boolean;
  task?: Task;
  timer?: NodeJS.Timeout;
  idle?: NodeJS.Timeout;
  /** Why we killed it (a death we did not cause is read from its exit). */
  killedFor?: ExpressionStopped | Error;
  stderr: string;
}

type Reply = { ready: true } | ({ id: number; cpuS: number } & ({ ok: true; json?: string } | { ok: false; message: string; stopped: boolean }));

/** Grace after the wall time before the hard kill, so JSONata's own timer can end loops without costing a worker. */
const KILL_GRACE_MS = 100;
/** Kernel CPU-time limit of a worker process, and the CPU use after which the pool retires it. */
const CPU_LIMIT_S = 120;
const RETIRE_AFTER_CPU_S = 60;
/** Scheduling priority of workers (POSIX nice): lower than the process serving HTTP. */
const WORKER_NICE = 10;
const SANDBOX_DIR = "integrations/core/sandbox";

/** The worker entry: beside this file when run from the sources, else from the project root (bundles). */
export function workerFile(): string {
  const candidates = [
    path.join(path.dirname(fileURLToPath(import.meta.url)), "expression-worker.mjs"),
    path.resolve(process.cwd(), SANDBOX_DIR, "expression-worker.mjs"),
  ];
  return candidates.find((f) => fs.existsSync(f)) ?? candidates[1]!;
}

/** Node flags of a worker: heap limit, no code generation, file reads limited to its code and JSONata. */
function workerFlags(file: string, maxHeapMb: number): string[] {
  const flags = [
    `--max-old-space-size=${maxHeapMb}`,
    `--max-semi-space-size=${Math.min(16, Math.max(1, Math.floor(maxHeapMb / 8)))}`,
    "--disallow-code-generation-from-strings",
  ];
  // Stable as --permission since Node 22.13 / 23.5; earlier 22.x only know the experimental spelling.
  const permission = ["--permission", "--experimental-permission"].find((f) => process.allowedNodeEnvironmentFlags.has(f));
  try {
    const jsonataDir = path.dirname(createRequire(file).resolve("jsonata/package.json"));
    if (permission) flags.push(permission, `--allow-fs-read=${path.dirname(file)}${path.sep}`, `--allow-fs-read=${jsonataDir}${path.sep}`);
  } catch {
    /* jsonata not resolvable from the worker file: the worker will say so when it starts */
  }
  return flags;
}

export class ExpressionPool {
  private readonly slots = new Set<Slot>();
  private readonly queue: Task[] = [];
  private readonly flags: string[];
  private nextId = 1;
  private pending = 0;
  /** Keeps the process alive while evaluations are pending (workers and their channels are unref'd). */
  private keepAlive?: NodeJS.Timeout;
  private startFailures = 0;
  private counts = { evaluated: 0, stopped: { time: 0, heap: 0, crash: 0 } as Record<StopReason, number> };

  constructor(
    readonly limits: PoolLimits,
    private readonly file = workerFile(),
  ) {
    this.flags = workerFlags(file, limits.maxHeapMb);
  }

  /** Evaluates `source` with `bindings` (JSON text) in a worker; resolves with the result's JSON text. */
  run(source: string, bindings: string, signal?: AbortSignal): Promise<string | undefined> {
    if (signal?.aborted) return Promise.reject(signal.reason ?? new Error("aborted"));
    return new Promise((resolve, reject) => {
      const task: Task = { id: this.nextId++, source, bindings, resolve, reject, signal };
      if (this.pending++ === 0) this.keepAlive = setInterval(() => undefined, 60_000);
      if (signal) {
        task.onAbort = () => this.abort(task);
        signal.addEventListener("abort", task.onAbort, { once: true });
      }
      this.queue.push(task);
      this.pump();
    });
  }

  stats() {
    let busy = 0;
    for (const s of this.slots) if (s.task) busy++;
    return {
      workers: this.slots.size,
      busy,
      queued: this.queue.length,
      evaluated: this.counts.evaluated,
      stopped: { ...this.counts.stopped },
      pids: [...this.slots].map((s) => s.child.pid),
    };
  }

  /** Kills every worker; queued and running evaluations fail. */
  async close(): Promise<void> {
    for (const t of this.queue.splice(0)) this.settle(t, new Error("expression pool closed"));
    const exits = [...this.slots].map((s) => {
      s.child.ref(); // wait for it even where nothing else keeps the process alive
      return new Promise<void>((r) => (s.child.exitCode !== null || s.child.signalCode !== null ? r() : s.child.once("exit", () => r())));
    });
    for (const s of [...this.slots]) this.kill(s, new Error("expression pool closed"));
    await Promise.all(exits);
  }

  private pump(): void {
    while (this.queue.length) {
      let slot: Slot | undefined;
      let starting = 0;
      for (const s of this.slots) {
        if (!s.ready) starting++;
        else if (!s.task && !slot) slot = s;
      }
      if (!slot) {
        while (this.slots.size < this.limits.workers && starting < this.queue.length) {
          this.spawn();
          starting++;
        }
        return;
      }
      this.start(slot, this.queue.shift()!);
    }
  }

  private start(slot: Slot, task: Task): void {
    if (slot.idle) clearTimeout(slot.idle);
    slot.task = task;
    slot.timer = setTimeout(
      () => this.kill(slot, new ExpressionStopped(`it ran longer than ${this.limits.timeoutMs} ms`, "time")),
      this.limits.timeoutMs + KILL_GRACE_MS,
    );
    slot.child.send({ id: task.id, source: task.source, bindings: task.bindings, timeoutMs: this.limits.timeoutMs });
  }

  private spawn(): void {
    const stdio: ["ignore", "ignore", "pipe", "ipc"] = ["ignore", "ignore", "pipe", "ipc"];
    const env = {} as NodeJS.ProcessEnv; // nothing inherited: no secrets in the worker
    const child = fs.existsSync("/bin/sh")
      ? spawn("/bin/sh", ["-c", `ulimit -t ${CPU_LIMIT_S} && exec "$0" "$@"`, process.execPath, ...this.flags, this.file], {
          env,
          stdio,
          serialization: "json",
        })
      : fork(this.file, [], { execArgv: this.flags, env, stdio, serialization: "json" });
    try {
      // Below the doors: a worker spinning on a poison expression yields the CPU to HTTP requests.
      if (child.pid) os.setPriority(child.pid, WORKER_NICE);
    } catch {
      /* not permitted here: runs at normal priority */
    }
    const slot: Slot = { child, ready: false, gone: false, stderr: "" };
    this.slots.add(slot);
    child.unref();
    child.channel?.unref();
    child.stderr?.on("data", (d: Buffer) => (slot.stderr = (slot.stderr + d.toString()).slice(-4000)));
    (child.stderr as unknown as { unref?: () => void } | null)?.unref?.();
    child.on("message", (m: Reply) => this.onMessage(slot, m));
    child.on("error", (e) => this.kill(slot, new ExpressionStopped(`its worker failed: ${e.message}`, "crash")));
    child.on("exit", (code, signal) => this.onExit(slot, code, signal));
  }

  private onMessage(slot: Slot, m: Reply): void {
    if ("ready" in m) {
      slot.ready = true;
      this.startFailures = 0;
      this.pump();
      if (!slot.task) this.idleLater(slot);
      return;
    }
    const task = slot.task;
    if (!task || task.id !== m.id) return;
    clearTimeout(slot.timer);
    slot.task = undefined;
    this.counts.evaluated++;
    if (m.ok) this.settle(task, undefined, m.json);
    else this.settle(task, new ExpressionFailed(m.message, m.stopped));
    if (m.cpuS > RETIRE_AFTER_CPU_S) this.kill(slot);
    this.pump();
    if (!slot.task && !slot.gone) this.idleLater(slot);
  }

  private idleLater(slot: Slot): void {
    if (slot.idle) clearTimeout(slot.idle);
    slot.idle = setTimeout(() => !slot.task && this.kill(slot), this.limits.idleMs);
    slot.idle.unref();
  }

  private abort(task: Task): void {
    const reason = task.signal?.reason instanceof Error ? task.signal.reason : new Error("aborted");
    const i = this.queue.indexOf(task);
    if (i >= 0) {
      this.queue.splice(i, 1);
      this.settle(task, reason);
      return;
    }
    for (const slot of this.slots) if (slot.task === task) this.kill(slot, reason);
  }

  /** Takes a worker out of the pool and kills it; its evaluation (if any) fails with `why`. */
  private kill(slot: Slot, why?: Error): void {
    if (slot.gone) return;
    this.remove(slot);
    if (why instanceof ExpressionStopped) this.counts.stopped[why.reason]++;
    const task = slot.task;
    slot.task = undefined;
    if (task) this.settle(task, why ?? new ExpressionStopped("its worker stopped", "crash"));
    slot.child.kill("SIGKILL");
    this.pump();
  }

  /** A worker exited on its own: out of memory, crashed, or could not start. */
  private onExit(slot: Slot, code: number | null, signal: NodeJS.Signals | null): void {
    if (slot.gone) return;
    this.remove(slot);
    const task = slot.task;
    slot.task = undefined;
    const oom = /heap out of memory|Reached heap limit|Allocation failed/i.test(slot.stderr);
    const why = oom
      ? new ExpressionStopped(`it used more than ${this.limits.maxHeapMb} MB of memory`, "heap")
      : new ExpressionStopped(`its worker crashed (${signal ?? `exit code ${code}`})`, "crash");
    this.counts.stopped[why.reason]++;
    if (task) this.settle(task, why);
    if (!slot.ready && ++this.startFailures >= 3) {
      // Workers that die before they are ready cannot run anything: fail what waits instead of
      // starting workers forever (a broken install, not a user's expression).
      const detail = slot.stderr.trim().split("\n").slice(-3).join(" ") || why.message;
      for (const t of this.queue.splice(0)) this.settle(t, new Error(`expression worker could not start: ${detail}`));
    }
    this.pump();
  }

  private remove(slot: Slot): void {
    slot.gone = true;
    this.slots.delete(slot);
    clearTimeout(slot.timer);
    if (slot.idle) clearTimeout(slot.idle);
  }

  private settle(task: Task, error: Error | undefined, json?: string): void {
    if (task.signal && task.onAbort) task.signal.removeEventListener("abort", task.onAbort);
    if (--this.pending === 0) clearInterval(this.keepAlive);
    if (error) task.reject(error);
    else task.resolve(json);
  }
}
