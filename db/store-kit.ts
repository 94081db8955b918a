/**
 * The machinery behind `Store` (db/store.ts): each domain store is a plain object of functions
 * taking a `Ctx` first; the facade binds them either to the process-wide backend (every call runs on
 * its own, through `backend.read`) or to one open transaction (`store.tx(async (s) => …)`).
 */
import type { Backend, Dialect, Handle, Tables } from "./backend";

export interface Ctx {
  readonly h: Handle;
  readonly t: Tables;
  readonly dialect: Dialect;
  readonly backend: Backend;
  readonly inTx: boolean;
  /** Runs `fn` atomically: joins the current transaction, or opens one. */
  tx<T>(fn: (c: Ctx) => Promise<T>): Promise<T>;
}

export function makeCtx(backend: Backend, h: Handle, inTx: boolean): Ctx {
  const ctx: Ctx = {
    h,
    t: backend.t,
    dialect: backend.dialect,
    backend,
    inTx,
    tx: (fn) => (inTx ? fn(ctx) : backend.tx((h2) => fn(makeCtx(backend, h2, true)))),
  };
  return ctx;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type DomainFns = Record<string, (c: Ctx, ...args: any[]) => Promise<unknown>>;
export type Bound<D> = { [K in keyof D]: D[K] extends (c: Ctx, ...a: infer A) => infer R ? (...a: A) => R : never };

/** Binds a domain's functions to a runner of contexts. */
export function bindDomain<D extends DomainFns>(domain: D, run: <T>(fn: (c: Ctx) => Promise<T>) => Promise<T>): Bound<D> {
  const out: Record<string, unknown> = {};
  for (const [name, fn] of Object.entries(domain)) out[name] = (...args: unknown[]) => run((c) => fn(c, ...args));
  return out as Bound<D>;
}

/** First row of a query or undefined (drizzle's `.get()` exists on SQLite only). */
export async function first<T>(q: PromiseLike<T[]>): Promise<T | undefined> {
  return (await q)[0];
}

/** `T` with the keys `K` optional (columns with a default, e.g. nullable ones a caller may leave out). */
export type Optional<T, K extends keyof T> = Omit<T, K> & Partial<Pick<T, K>>;
