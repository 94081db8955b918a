/**
 * Intake heads by URL token for the PostgreSQL ingress: the lookups of one tick go out as one query
 * (`token = any(…)`, sent after every request of the tick arrived), and active trigger intakes are
 * kept per process (see intakeHeads).
 */
import type pg from "pg";
import type { IntakeHead } from "../engine";

const HEAD_SQL = `select i.token, i.id, i.workspace_id as "workspaceId", i.kind, i.automation_id as "automationId", i.node_id as "nodeId", i.connection_id as "connectionId",
   i.line_id as "lineId", i.status, i.updated_at as "updatedAt", i.config, i.secret_enc as "secretEnc", i.name,
   a.version as "automationVersion", a.enabled as "automationEnabled", a.updated_at as "automationUpdatedAt", c.updated_at as "connectionUpdatedAt"
 from intakes i left join automations a on a.id = i.automation_id left join connections c on c.id = i.connection_id where i.token = any($1::text[])`;

/** A head the ingress may serve from its cache: an active trigger intake of an enabled automation. */
const cacheable = (h: IntakeHead) => h.kind === "trigger" && h.status !== "disabled" && h.automationEnabled === true && h.automationVersion !== null;

/**
 * `intakeHead(token)` with the lookups of one tick grouped into one query, and the heads of active
 * trigger intakes kept (at most `maxCached`) and served as `cached`. A cached head is only ever
 * used for an ingest that re-checks it in its own statement (the `st` part of db/pg/ingest.ts's statement: nothing is stored
 * unless the intake, automation and connection still match), and a refusal made from one is decided again on a
 * fresh lookup (server/services/webhooks/receive-webhook.ts). So a disable, a new version or a
 * rotated secret committed before a delivery arrived still applies to it, in every process, while
 * the usual delivery costs no lookup round trip.
 */
export function intakeHeads(pool: pg.Pool, maxCached = 10_000): (token: string, opts?: { fresh?: boolean }) => Promise<IntakeHead | undefined> {
  const cache = new Map<string, IntakeHead>();
  let waiting = new Map<string, Array<{ resolve(h: IntakeHead | undefined): void; reject(e: unknown): void }>>();
  const flush = async () => {
    const batch = waiting;
    waiting = new Map();
    try {
      // Named: parsed and planned once per connection (a three-table join).
      const r = await pool.query<IntakeHead & { token: string }>({ name: "conveyor_intake_heads", text: HEAD_SQL, values: [[...batch.keys()]] });
      const byToken = new Map(r.rows.map(({ token, ...head }) => [token, head as IntakeHead]));
      for (const [token, ws] of batch) {
        const head = byToken.get(token);
        if (head && cacheable(head)) {
          if (cache.size >= maxCached) cache.clear();
          cache.set(token, { ...head, cached: true });
        } else cache.delete(token);
        for (const w of ws) w.resolve(head);
      }
    } catch (e) {
      for (const ws of batch.values()) for (const w of ws) w.reject(e);
    }
  };
  return (token, opts) => {
    const hit = opts?.fresh ? undefined : cache.get(token);
    if (hit) return Promise.resolve(hit);
    return new Promise((resolve, reject) => {
      if (!waiting.size) setImmediate(() => void flush());
      const list = waiting.get(token);
      if (list) list.push({ resolve, reject });
      else waiting.set(token, [{ resolve, reject }]);
    });
  };
}
