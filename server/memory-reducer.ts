/**
 * Hands memory back to the system soon after a burst of work ends.
 *
 * During a burst (say 100,000 webhook runs in half a minute) V8 grows its heap to the allocation
 * rate, keeps the pages it freed for reuse, and on its own gives them back only several seconds
 * after the process turns idle (its memory reducer starts 8 s after the last major collection).
 * Until then the process holds several times its live memory (bench/footprint.ts, right after
 * 100,000 runs: a V8 heap of 191–205 MB with 49–50 MB of it live, the npm start tree at 501–512 MB). This watcher samples the event loop's utilisation
 * and the heap: when the loop has been idle for a whole window (a quarter second, under 2 % busy) and
 * the heap has grown well past what the last reduction left, it asks V8 for a memory-reducing full collection,
 * which also returns pooled pages and shrinks the young generation. It costs a pause of a few tens
 * of milliseconds, only while nothing is waiting, at most once per `minGapMs` (30 s).
 *
 * The peak during a burst is bounded by V8's heap growing factor, set here at run time
 * (`CONVEYOR_HEAP_GROWING_PERCENT`, default 100 %: the next full collection comes once the heap has
 * doubled past what the last one left, where V8's own rule lets a fast-allocating process grow to
 * several times that). Measured alternately (bench/footprint.ts, bench/runner.ts; docs/benchmarks.md):
 * the npm start tree peaked at 359 MB during 100,000 webhook runs with 100 %, 335 MB with 50 %, about
 * 510 MB with V8's rule; the runner's CPU per 3-step run was 1–4 % higher with 100 % (within the
 * bench's noise), 3–13 % with 50 %, ~20 % with 20 %.
 */
import { performance } from "node:perf_hooks";
import v8 from "node:v8";
import vm from "node:vm";
import type { Env } from "./env";

type GcFn = (options: { type: "major"; execution: "sync"; flavor: "last-resort" }) => void;

let gcFn: GcFn | null | undefined;
/** V8's collector as a function, obtained without a command-line flag (undefined where V8 refuses). */
function collector(): GcFn | null {
  if (gcFn !== undefined) return gcFn;
  try {
    v8.setFlagsFromString("--expose-gc");
    gcFn = vm.runInNewContext("gc") as GcFn;
  } catch {
    gcFn = null;
  }
  return gcFn;
}

export interface MemoryReducerOptions {
  /** V8's heap growing factor in percent over the live heap (0: V8's own). */
  heapGrowingPercent?: number;
  /** false: only set the growing factor, give nothing back after bursts. */
  watch?: boolean;
  /** How often the loop and heap are sampled (ms). */
  windowMs?: number;
  /** Utilisation of the event loop under which a window counts as idle (0..1). */
  idleBelow?: number;
  /** Consecutive idle windows before a reduction. */
  idleWindows?: number;
  /** Heap growth past what the last collection left that is worth giving back (bytes). */
  growthBytes?: number;
  /** Least time between two reductions (ms). */
  minGapMs?: number;
}

export interface MemoryReducer {
  /** Reductions made so far. */
  readonly reductions: number;
  stop(): void;
}

/** The memory settings of every long-running process (the web server, `conveyor worker` and `ingress`, the benches' servers). */
export function startProcessMemoryReducer(e: Pick<Env, "CONVEYOR_HEAP_GROWING_PERCENT" | "CONVEYOR_MEMORY_REDUCER">): MemoryReducer {
  return startMemoryReducer({ heapGrowingPercent: e.CONVEYOR_HEAP_GROWING_PERCENT, watch: e.CONVEYOR_MEMORY_REDUCER });
}

const heapCommitted = () => v8.getHeapStatistics().total_heap_size;

export function startMemoryReducer(options: MemoryReducerOptions = {}): MemoryReducer {
  const windowMs = options.windowMs ?? 250;
  // 2 % of a 250 ms window is 5 ms of work: the embedded server spends about 0.3 ms per webhook run
  // (ingest and three steps), so steady traffic above ~60 deliveries/s never counts as idle and keeps
  // V8's own collections; lighter traffic gets at most one reduction per `minGapMs`.
  const idleBelow = options.idleBelow ?? 0.02;
  const idleWindows = options.idleWindows ?? 1;
  const growthBytes = options.growthBytes ?? 32 * 2 ** 20;
  const minGapMs = options.minGapMs ?? 30_000;
  if (options.heapGrowingPercent) v8.setFlagsFromString(`--heap-growing-percent=${options.heapGrowingPercent}`);
  const gc = options.watch === false ? null : collector();
  if (!gc) return { reductions: 0, stop: () => undefined };
  let reductions = 0;
  let floor = 0; // heap committed after the last reduction (0: none yet, start-up counts as growth)
  let lastAt = -Infinity;
  let elu = performance.eventLoopUtilization();
  let idleInRow = 0;
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    const window = performance.eventLoopUtilization(now, elu);
    elu = now;
    idleInRow = window.utilization < idleBelow ? idleInRow + 1 : 0;
    if (idleInRow < idleWindows) return;
    const t = performance.now();
    if (t - lastAt < minGapMs) return;
    if (heapCommitted() < floor + growthBytes) return;
    gc({ type: "major", execution: "sync", flavor: "last-resort" });
    reductions++;
    lastAt = performance.now();
    floor = heapCommitted();
  }, windowMs);
  timer.unref();
  return {
    get reductions() {
      return reductions;
    },
    stop: () => clearInterval(timer),
  };
}
