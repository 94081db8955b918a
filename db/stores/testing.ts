/**
 * Helpers for the store contract tests (db/stores/*.test.ts): a second, independent store on the
 * test database stands for another process (its own SQLite connection, or its own PostgreSQL
 * pool), so atomicity is checked across connections, not just across calls of one process.
 */
import { openStorage } from "../open";
import type { Store } from "../store";

export async function anotherProcess(url: string): Promise<Store> {
  return (await openStorage(url, { migrate: false, pg: { max: 4 } })).store;
}

/** Runs `n` calls of `fn` at once, alternating between the given stores. */
export function race<T>(stores: Store[], n: number, fn: (s: Store, i: number) => Promise<T>): Promise<T[]> {
  return Promise.all(Array.from({ length: n }, (_, i) => fn(stores[i % stores.length]!, i)));
}
