/**
 * Reference-counted upstream webhook registrations per connection (SharedRegistrations).
 * Counting is atomic in the store (db/stores/registrations.ts); the upstream calls run outside
 * any transaction. A registration being created by another process is pending (`upstreamId` "")
 * until its creator stores the upstream record: joiners wait for it.
 */
import type { Store } from "@/db/store";
import type { WebhookRegistrationRow } from "@/db/types";
import type { RegistrationRecord, SharedRegistrations } from "@/integrations/core/define";
import { newId } from "../../ids";

const PENDING_WAIT_MS = 30_000;
/** A pending registration older than this is taken to be abandoned by a crashed creator. */
const PENDING_STALE_MS = 2 * 60_000;

const toRecord = (r: WebhookRegistrationRow): RegistrationRecord => ({
  upstreamId: r.upstreamId,
  expiresAt: r.expiresAt ?? undefined,
  data: r.data ?? undefined,
});
const fields = (rec: RegistrationRecord) => ({ upstreamId: rec.upstreamId, expiresAt: rec.expiresAt ?? null, data: rec.data ?? null });
const isPending = (r: WebhookRegistrationRow) => r.upstreamId === "";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function sharedRegistrations(store: Store, connectionId: string, user: { automationId: string; nodeId: string }): SharedRegistrations {
  const find = async (key: string) => {
    const r = await store.registrations.find(connectionId, key);
    return r && !isPending(r) ? r : undefined;
  };

  /** Waits until the pending registration `id` is filled in; undefined when it went away (claim again). */
  async function settled(key: string, id: string): Promise<WebhookRegistrationRow | undefined> {
    const deadline = Date.now() + PENDING_WAIT_MS;
    for (;;) {
      const r = await store.registrations.find(connectionId, key);
      if (!r || r.id !== id) return undefined;
      if (!isPending(r)) return r;
      if (Date.now() - Date.parse(r.createdAt) > PENDING_STALE_MS) {
        await store.registrations.abandon(r.id);
        return undefined;
      }
      if (Date.now() > deadline) throw new Error(`Timed out waiting for another process to register the upstream webhook "${key}"`);
      await sleep(100);
    }
  }

  return {
    async acquire(key, create, update) {
      for (;;) {
        const { claimed, row } = await store.registrations.claim(connectionId, key, user, { id: newId("reg"), at: new Date().toISOString() });
        if (claimed) {
          let rec: RegistrationRecord;
          try {
            rec = await create();
          } catch (e) {
            await store.registrations.abandon(row.id);
            throw e;
          }
          await store.registrations.save(row.id, fields(rec), new Date().toISOString());
          return rec;
        }
        const existing = isPending(row) ? await settled(key, row.id) : row;
        if (!existing) continue;
        if (update) {
          const rec = await update(toRecord(existing));
          await store.registrations.save(existing.id, fields(rec), new Date().toISOString());
          return rec;
        }
        return toRecord(existing);
      }
    },
    async release(key, destroy) {
      const left = await store.registrations.leave(connectionId, key, user);
      if (!left?.last || isPending(left.row)) return;
      try {
        await destroy(toRecord(left.row));
      } catch (e) {
        await store.registrations.restore(left.row); // kept (without users) as before, for a later retry
        throw e;
      }
    },
    async get(key) {
      const r = await find(key);
      return r ? toRecord(r) : undefined;
    },
    async users(key) {
      const out = [];
      for (const u of await store.registrations.users(connectionId, key)) {
        const node = u.enabled ? u.graph?.nodes.find((n) => n.id === u.nodeId) : undefined;
        if (node) out.push({ automationId: u.automationId, nodeId: u.nodeId, triggerKey: node.key, config: node.config });
      }
      return out;
    },
    async save(key, record) {
      const r = await find(key);
      if (r) await store.registrations.save(r.id, fields(record), new Date().toISOString());
    },
  };
}
