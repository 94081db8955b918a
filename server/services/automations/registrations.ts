/** Reference-counted upstream webhook registrations per connection (SharedRegistrations). */
import { and, eq } from "drizzle-orm";
import { automations, webhookRegistrations, webhookRegistrationUsers } from "@/db/schema";
import type { RegistrationRecord, SharedRegistrations } from "@/integrations/core/define";
import type { Db } from "@/db/client";
import { newId } from "../../ids";

export function sharedRegistrations(db: Db, connectionId: string, user: { automationId: string; nodeId: string }): SharedRegistrations {
  const find = (key: string) =>
    db.select().from(webhookRegistrations).where(and(eq(webhookRegistrations.connectionId, connectionId), eq(webhookRegistrations.key, key))).get();
  const toRecord = (r: NonNullable<ReturnType<typeof find>>): RegistrationRecord => ({ upstreamId: r.upstreamId, expiresAt: r.expiresAt ?? undefined, data: r.data ?? undefined });
  const addUser = (registrationId: string) =>
    db.insert(webhookRegistrationUsers).values({ registrationId, ...user, createdAt: new Date().toISOString() }).onConflictDoNothing().run();
  const save = (id: string, rec: RegistrationRecord) =>
    db.update(webhookRegistrations).set({ upstreamId: rec.upstreamId, expiresAt: rec.expiresAt ?? null, data: rec.data ?? null, updatedAt: new Date().toISOString() }).where(eq(webhookRegistrations.id, id)).run();

  return {
    async acquire(key, create, update) {
      const existing = find(key);
      if (!existing) {
        const rec = await create();
        const at = new Date().toISOString();
        const id = newId("reg");
        db.insert(webhookRegistrations).values({ id, connectionId, key, upstreamId: rec.upstreamId, expiresAt: rec.expiresAt ?? null, data: rec.data ?? null, createdAt: at, updatedAt: at }).run();
        addUser(id);
        return rec;
      }
      addUser(existing.id);
      if (update) {
        const rec = await update(toRecord(existing));
        save(existing.id, rec);
        return rec;
      }
      return toRecord(existing);
    },
    async release(key, destroy) {
      const existing = find(key);
      if (!existing) return;
      db.delete(webhookRegistrationUsers)
        .where(and(eq(webhookRegistrationUsers.registrationId, existing.id), eq(webhookRegistrationUsers.automationId, user.automationId), eq(webhookRegistrationUsers.nodeId, user.nodeId)))
        .run();
      const left = db.select().from(webhookRegistrationUsers).where(eq(webhookRegistrationUsers.registrationId, existing.id)).all();
      if (left.length === 0) {
        await destroy(toRecord(existing));
        db.delete(webhookRegistrations).where(eq(webhookRegistrations.id, existing.id)).run();
      }
    },
    async get(key) {
      const r = find(key);
      return r ? toRecord(r) : undefined;
    },
    async users(key) {
      const r = find(key);
      if (!r) return [];
      const rows = db.select().from(webhookRegistrationUsers).where(eq(webhookRegistrationUsers.registrationId, r.id)).all();
      const out = [];
      for (const u of rows) {
        const a = db.select({ graph: automations.graph, enabled: automations.enabled }).from(automations).where(eq(automations.id, u.automationId)).get();
        const node = a?.enabled ? a.graph.nodes.find((n) => n.id === u.nodeId) : undefined;
        if (node) out.push({ automationId: u.automationId, nodeId: u.nodeId, triggerKey: node.key, config: node.config });
      }
      return out;
    },
    async save(key, record) {
      const r = find(key);
      if (r) save(r.id, record);
    },
  };
}
