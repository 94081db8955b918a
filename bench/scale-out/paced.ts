/**
 * Deliveries at an even pace: request i is sent at start + i / rate, whatever the answers do (an
 * open loop, so a slow answer does not slow the sender down). autocannon's `overallRate` sends each
 * second's quota back to back at the start of the second and then waits for the next one, so at
 * 100/s it measured how long a burst of 100 deliveries took to drain, not a steady 100/s.
 */
export interface PacedResult {
  sent: number;
  accepted: number;
  other: Record<string, number>;
  /** Request → response (ms), p99. */
  p99ms: number;
}

export async function paced(urls: string[], bodyOf: (i: number) => string, rate: number, seconds: number): Promise<PacedResult> {
  const interval = 1000 / rate;
  const total = Math.round(rate * seconds);
  const lat: number[] = [];
  const other: Record<string, number> = {};
  let accepted = 0;
  const inFlight: Array<Promise<void>> = [];
  const t0 = performance.now();
  for (let i = 0; i < total; i++) {
    const wait = t0 + i * interval - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const started = performance.now();
    inFlight.push(
      fetch(urls[i % urls.length]!, { method: "POST", headers: { "content-type": "application/json" }, body: bodyOf(i) }).then(
        async (r) => {
          await r.arrayBuffer();
          lat.push(performance.now() - started);
          if (r.status === 202) accepted++;
          else other[r.status] = (other[r.status] ?? 0) + 1;
        },
        (e: Error) => {
          other[e.message] = (other[e.message] ?? 0) + 1;
        },
      ),
    );
  }
  await Promise.all(inFlight);
  lat.sort((a, b) => a - b);
  return { sent: total, accepted, other, p99ms: Math.round((lat[Math.floor((lat.length - 1) * 0.99)] ?? 0) * 10) / 10 };
}
