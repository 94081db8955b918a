/**
 * The chaos suite's traffic: a loopback "effects" server the automation calls (a slow endpoint, so
 * kills land mid-step, and a fast one), and a stream of numbered webhook deliveries spread over the
 * ingress processes, with every answer recorded (status, or the network error when none came).
 * Each delivery carries its number in the body and as its delivery id (`Idempotency-Key: chaos-N`),
 * as a real sender's retry would; the invariants find its event and run by that id.
 */
import http from "node:http";
import type net from "node:net";

export interface Effects {
  url: string;
  /** Requests received per path and delivery number (a step runs at least once; re-runs show here). */
  calls(path: "/slow" | "/notify"): Map<number, number>;
  /** Slow requests being answered right now. */
  open(): number;
  close(): Promise<void>;
}

export async function startEffects(slowMs: number): Promise<Effects> {
  const calls = { "/slow": new Map<number, number>(), "/notify": new Map<number, number>() };
  let open = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const path = (req.url ?? "") as "/slow" | "/notify";
      let n = NaN;
      try {
        n = Number((JSON.parse(Buffer.concat(chunks).toString()) as { n: unknown }).n);
      } catch {
        /* counted under NaN */
      }
      const m = calls[path];
      if (m) m.set(n, (m.get(n) ?? 0) + 1);
      const answer = () => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ ok: true, n }));
      };
      if (path !== "/slow") return answer();
      open++;
      const t = setTimeout(() => {
        open--;
        answer();
      }, slowMs);
      res.on("close", () => {
        if (!res.writableFinished) {
          clearTimeout(t);
          open--;
        }
      });
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    calls: (p) => calls[p],
    open: () => open,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

export interface Delivery {
  n: number;
  /** Which ingress process it was sent to. */
  target: string;
  sentAt: number;
  answeredAt?: number;
  /** HTTP status; undefined when no answer came (connection refused or reset, timeout). */
  status?: number;
  error?: string;
  body?: { accepted?: number; runIds?: string[]; duplicates?: number; code?: string };
}

let nextNumber = 1;
/** Delivery numbers are unique across the whole suite. */
export const takeNumber = () => nextNumber++;

export async function deliver(base: string, hookPath: string, n: number, target: string, timeoutMs = 30_000): Promise<Delivery> {
  const d: Delivery = { n, target, sentAt: Date.now() };
  try {
    const r = await fetch(base + hookPath, {
      method: "POST",
      headers: { "content-type": "application/json", "idempotency-key": `chaos-${n}` },
      body: JSON.stringify({ n, ok: true }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    d.status = r.status;
    const text = await r.text();
    try {
      d.body = JSON.parse(text) as Delivery["body"];
    } catch {
      d.error = `unparsable body: ${text.slice(0, 200)}`;
    }
  } catch (e) {
    const err = e as Error & { cause?: { code?: string } };
    d.error = err.cause?.code ?? err.name ?? err.message;
  }
  d.answeredAt = Date.now();
  return d;
}

export interface Stream {
  /** Every delivery sent so far (answers fill in as they come). */
  records: Delivery[];
  /** Stops sending and waits for every answer. */
  stop(): Promise<Delivery[]>;
}

/** Sends `ratePerSecond` numbered deliveries, round-robin over `targets`, until stopped. */
export function startStream(targets: Array<{ base: string; name: string }>, hookPath: string, ratePerSecond: number): Stream {
  const records: Delivery[] = [];
  const pending = new Set<Promise<void>>();
  let i = 0;
  const timer = setInterval(() => {
    const n = takeNumber();
    const t = targets[i++ % targets.length]!;
    const rec: Delivery = { n, target: t.name, sentAt: Date.now() };
    records.push(rec);
    const p = deliver(t.base, hookPath, n, t.name).then((d) => void Object.assign(rec, d));
    pending.add(p);
    void p.finally(() => pending.delete(p));
  }, 1000 / ratePerSecond);
  return {
    records,
    async stop() {
      clearInterval(timer);
      while (pending.size) await Promise.all([...pending]);
      return records;
    },
  };
}
