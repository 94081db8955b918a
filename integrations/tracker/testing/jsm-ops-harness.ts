/**
 * Test harness for the service-desk and operations units: the fake Atlassian on loopback (every request
 * validated against the vendor OpenAPI files), a connection handle pointing at it, and `drive()` which
 * plays the engine's part for components that return `wait`.
 */
import type {
  AnyComponent,
  ComponentContext,
  ComponentResult,
  ConnectionHandle,
  IncomingDelivery,
  RegistrationRecord,
  SharedRegistrations,
} from "../../core/define";
import { createTestContext } from "../../core/testing";
import type { JsmState } from "./fake-atlassian/jsm";
import { JSM_DEMO, jsmStateOf, opsStateOf } from "./fake-atlassian/jsm/wiring";
import type { OpsSite, OpsState } from "./fake-atlassian/ops";
import { DEMO } from "./fake-atlassian/seed";
import { startFakeAtlassian, type FakeAtlassian } from "./fake-atlassian/server";
import type { LoggedRequest } from "./fake-atlassian/state";

export const CLOUD_ID = DEMO.cloudId;
export const ACCOUNT = DEMO.users.mia;

/** Every scope the JSM and Ops units use (classic Jira/JSM + ops granular). */
export const JSM_OPS_SCOPES = [
  "read:jira-work",
  "write:jira-work",
  "read:jira-user",
  "manage:jira-webhook",
  "manage:jira-configuration",
  "read:servicedesk-request",
  "write:servicedesk-request",
  "offline_access",
  "read:me",
  "read:ops-alert:jira-service-management",
  "write:ops-alert:jira-service-management",
  "delete:ops-alert:jira-service-management",
  "read:ops-config:jira-service-management",
  "write:ops-config:jira-service-management",
  "delete:ops-config:jira-service-management",
];

export interface JsmOpsFake {
  atlassian: FakeAtlassian;
  fake: { url: string; received: LoggedRequest[] };
  ops: OpsState;
  site: OpsSite;
  jsm: JsmState;
  teamId: string;
  clock: { offsetMs: number; now(): Date };
  /** Access token of `accountId` (default: Mia, the demo site admin). */
  tokenFor(accountId?: string): string;
  connection(overrides?: { config?: Record<string, unknown>; state?: Record<string, unknown>; accountId?: string }): ConnectionHandle;
  close(): Promise<void>;
}

/** The full fake Atlassian (demo seed, JSM + Ops modules mounted by server.ts) on loopback. */
export async function startJsmOpsFake(): Promise<JsmOpsFake> {
  const atlassian = await startFakeAtlassian();
  const state = atlassian.state;
  const ops = opsStateOf(state);
  const tokens = new Map<string, string>();
  const tokenFor = (accountId: string = ACCOUNT) => {
    if (!tokens.has(accountId)) {
      state.grants.set(`${DEMO.clientId}:${accountId}`, new Set([CLOUD_ID])); // the user consented for the demo site
      tokens.set(accountId, state.issueTokens(DEMO.clientId, accountId, JSM_OPS_SCOPES).access_token);
    }
    return tokens.get(accountId)!;
  };
  const clock = {
    get offsetMs() {
      return state.clockOffsetMs;
    },
    set offsetMs(v: number) {
      state.clockOffsetMs = v;
    },
    now: () => state.now(),
  };
  return {
    atlassian,
    fake: { url: atlassian.url, received: state.requests },
    ops,
    site: ops.site(CLOUD_ID),
    jsm: jsmStateOf(state),
    teamId: JSM_DEMO.teams.red,
    clock,
    tokenFor,
    connection: (o = {}) => ({
      id: "con_tracker",
      integration: "tracker",
      config: {
        clientId: DEMO.clientId,
        clientSecret: DEMO.clientSecret,
        enableOpsFeatures: true,
        apiBaseUrl: atlassian.url,
        authBaseUrl: atlassian.url,
        ...o.config,
      },
      state: { cloudId: CLOUD_ID, ...o.state },
      oauth: { getAccessToken: async () => tokenFor(o.accountId), refresh: async () => false },
    }),
    close: () => atlassian.stop(),
  };
}

export function contextFor<D extends AnyComponent>(def: D, h: JsmOpsFake, config: unknown, connection: ConnectionHandle = h.connection()) {
  return createTestContext(def, { config, connection, now: h.clock.now, http: undefined });
}

/**
 * Runs a component like the engine does: each `wait` advances the clock by its delay (sleeping at most
 * `realSleepMs` of real time, so the fake's processing timers can fire) and calls `run` again with the state.
 */
export async function drive<D extends AnyComponent>(
  def: D,
  ctx: ComponentContext,
  h: JsmOpsFake,
  opts: { realSleepMs?: number; maxSteps?: number } = {},
): Promise<{ result: ComponentResult; waits: number; waitStates: unknown[] }> {
  const waitStates: unknown[] = [];
  for (let i = 0; i < (opts.maxSteps ?? 200); i++) {
    const result = await def.run(ctx);
    if (!result || (result as { kind?: string }).kind !== "wait") return { result, waits: waitStates.length, waitStates };
    const w = result as { delayMs: number; state: unknown };
    waitStates.push(w.state);
    await new Promise((r) => setTimeout(r, Math.min(w.delayMs, opts.realSleepMs ?? 0)));
    h.clock.offsetMs += w.delayMs;
    (ctx as { state: unknown }).state = w.state;
  }
  throw new Error("component kept waiting");
}

/** In-memory SharedRegistrations with reference counting by node (what the engine keeps in its DB). */
export function memoryRegistrations(
  nodeId: string,
  store = new Map<string, { record: RegistrationRecord; users: Set<string>; configs: Map<string, unknown> }>(),
) {
  const regs: SharedRegistrations & { store: typeof store } = {
    store,
    async acquire(key, create, update) {
      const cur = store.get(key);
      if (!cur) {
        store.set(key, { record: await create(), users: new Set([nodeId]), configs: new Map() });
      } else {
        if (update) cur.record = await update(cur.record);
        cur.users.add(nodeId);
      }
      return store.get(key)!.record;
    },
    async release(key, destroy) {
      const cur = store.get(key);
      if (!cur) return;
      cur.users.delete(nodeId);
      if (cur.users.size === 0) {
        await destroy(cur.record);
        store.delete(key);
      }
    },
    async get(key) {
      return store.get(key)?.record;
    },
    async users(key) {
      return [...(store.get(key)?.users ?? [])].map((n) => ({ automationId: "aut_test", nodeId: n, triggerKey: "", config: store.get(key)?.configs.get(n) }));
    },
    async save(key, record) {
      const cur = store.get(key);
      if (cur) cur.record = record;
    },
  };
  return regs;
}

/** A loopback receiver standing in for Conveyor's intake URL; records every delivery. */
export async function startReceiver(status = 200) {
  const { createServer } = await import("node:http");
  const deliveries: IncomingDelivery[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const rawBody = Buffer.concat(chunks);
      const u = new URL(req.url ?? "/", "http://x");
      deliveries.push({
        method: req.method!,
        headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)])),
        query: Object.fromEntries(u.searchParams),
        rawBody,
        body: rawBody.length ? JSON.parse(rawBody.toString("utf8")) : null,
      });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as import("node:net").AddressInfo).port;
  return { url: `http://127.0.0.1:${port}`, deliveries, close: () => new Promise<void>((r) => server.close(() => r())) };
}
