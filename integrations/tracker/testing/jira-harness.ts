/**
 * Test harness for the Jira part of the tracker integration: the fake Atlassian on loopback, a connection
 * obtained through the real OAuth flow (authorize → code → token → accessible-resources), an in-memory
 * token source with rotating refresh (stand-in for the engine's DB-backed one), reference-counted
 * registrations shared by several trigger nodes, and a loopback receiver standing in for the shared intake.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type {
  ConnectionHandle,
  IncomingDelivery,
  OAuthTokens,
  OAuthTokenSource,
  RegistrationRecord,
  SharedRegistrations,
  TriggerSetupContext,
} from "../../core/define";
import { ConnectionAuthError } from "../../core/errors";
import { createHttpClient, type HttpClient } from "../../core/http";
import { createTestLogger } from "../../core/testing";
import { trackerConnectionSchema, trackerOAuth, type TrackerConnection } from "../connection";
import { startFakeAtlassian, type FakeAtlassian, type FakeAtlassianOptions } from "./fake-atlassian/server";

export const REDIRECT_URI = "http://127.0.0.1:3999/api/oauth/callback";

export function connectionConfig(fake: FakeAtlassian, extra: Partial<TrackerConnection> = {}): TrackerConnection {
  return trackerConnectionSchema.parse({
    clientId: fake.demo.clientId,
    clientSecret: fake.demo.clientSecret,
    authBaseUrl: fake.url,
    apiBaseUrl: fake.url,
    ...extra,
  });
}

/** Runs the browser part of the flow against the fake's auto-consent page; returns the authorization code. */
export async function authorize(fake: FakeAtlassian, config: TrackerConnection, state = "st-1"): Promise<string> {
  const res = await fetch(trackerOAuth.authorizeUrl(config, { state, redirectUri: REDIRECT_URI }), { redirect: "manual" });
  const location = res.headers.get("location");
  if (res.status !== 302 || !location) throw new Error(`authorize answered ${res.status}: ${await res.text()}`);
  const back = new URL(location);
  if (back.searchParams.get("state") !== state) throw new Error("state mismatch");
  const code = back.searchParams.get("code");
  if (!code) throw new Error(`no code: ${location}`);
  return code;
}

/** In-memory token source: proactive refresh near expiry, serialised refreshes, rotation, "needs reconnect" on refusal. */
export function memoryTokenSource(config: TrackerConnection, initial: OAuthTokens, http: HttpClient = createHttpClient()) {
  let tokens = initial;
  let inflight: Promise<boolean> | undefined;
  const status = { needsReconnect: false, refreshes: 0 };
  const doRefresh = async (): Promise<boolean> => {
    if (status.needsReconnect) return false;
    try {
      const fresh = await trackerOAuth.refresh(config, { refreshToken: tokens.refreshToken!, http });
      tokens = { ...tokens, ...fresh, refreshToken: fresh.refreshToken ?? tokens.refreshToken };
      status.refreshes++;
      return true;
    } catch (e) {
      if ((e as { retryable?: boolean }).retryable) throw e;
      status.needsReconnect = true;
      return false;
    }
  };
  const source: OAuthTokenSource & { status: typeof status; tokens(): OAuthTokens } = {
    status,
    tokens: () => tokens,
    async getAccessToken() {
      if (status.needsReconnect) throw new ConnectionAuthError("needs reconnect");
      if (tokens.expiresAt && tokens.expiresAt - Date.now() < 60_000 && !(await source.refresh())) throw new ConnectionAuthError("needs reconnect");
      return tokens.accessToken;
    },
    refresh() {
      inflight ??= doRefresh().finally(() => (inflight = undefined));
      return inflight;
    },
  };
  return source;
}

export interface JiraTestEnv {
  fake: FakeAtlassian;
  config: TrackerConnection;
  tokens: ReturnType<typeof memoryTokenSource>;
  connection: ConnectionHandle<TrackerConnection>;
  http: HttpClient;
}

/** Starts the fake and connects through the real OAuth flow. */
export async function startJiraEnv(opts: FakeAtlassianOptions & { connection?: Partial<TrackerConnection> } = {}): Promise<JiraTestEnv> {
  const fake = await startFakeAtlassian(opts);
  const config = connectionConfig(fake, opts.connection);
  const http = createHttpClient();
  const code = await authorize(fake, config);
  const tokens = await trackerOAuth.exchangeCode(config, { code, redirectUri: REDIRECT_URI, http });
  const after = await trackerOAuth.afterConnect!(config, { accessToken: tokens.accessToken, http });
  const state = after.state ?? after.choices?.[0]?.state ?? {};
  const source = memoryTokenSource(config, tokens, http);
  return { fake, config, tokens: source, http, connection: { id: "con_tracker", integration: "tracker", config, state, oauth: source } };
}

type Store = Map<string, { record: RegistrationRecord; users: Map<string, { triggerKey: string; config: unknown }> }>;

/** Reference-counted registrations as the engine keeps them, for one trigger node of a shared store. */
export function nodeRegistrations(store: Store, node: { automationId: string; nodeId: string; triggerKey: string; config: unknown }): SharedRegistrations {
  const id = `${node.automationId}/${node.nodeId}`;
  return {
    async acquire(key, create, update) {
      const cur = store.get(key);
      if (!cur) store.set(key, { record: await create(), users: new Map([[id, node]]) });
      else {
        if (update) cur.record = await update(cur.record);
        cur.users.set(id, node);
      }
      return store.get(key)!.record;
    },
    async release(key, destroy) {
      const cur = store.get(key);
      if (!cur) return;
      cur.users.delete(id);
      if (!cur.users.size) {
        await destroy(cur.record);
        store.delete(key);
      }
    },
    async get(key) {
      return store.get(key)?.record;
    },
    async users(key) {
      return [...(store.get(key)?.users ?? new Map()).entries()].map(([k, u]) => {
        const [automationId, nodeId] = k.split("/") as [string, string];
        return { automationId, nodeId, triggerKey: u.triggerKey, config: u.config };
      });
    },
    async save(key, record) {
      const cur = store.get(key);
      if (cur) cur.record = record;
    },
  };
}

export function setupContext<C>(
  env: JiraTestEnv,
  store: Store,
  node: { automationId?: string; nodeId: string; triggerKey: string; config: C },
  intakeUrl: string,
): TriggerSetupContext<C, TrackerConnection> {
  const full = { automationId: node.automationId ?? "aut_1", nodeId: node.nodeId, triggerKey: node.triggerKey, config: node.config };
  const intake = { id: "int_shared", url: intakeUrl, token: new URL(intakeUrl).pathname.split("/").pop()! };
  return {
    config: node.config,
    connection: env.connection,
    http: env.http,
    log: createTestLogger(),
    intake,
    sharedIntake: intake,
    registrations: nodeRegistrations(store, full),
    automationId: full.automationId,
    nodeId: full.nodeId,
  };
}

/** A loopback receiver standing in for Conveyor's shared intake; records every delivery. */
export async function startReceiver(): Promise<{ url: string; deliveries: IncomingDelivery[]; status: { code: number }; close(): Promise<void> }> {
  const deliveries: IncomingDelivery[] = [];
  const status = { code: 200 };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const rawBody = Buffer.concat(chunks);
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
      const url = new URL(req.url ?? "/", "http://x");
      deliveries.push({
        method: req.method ?? "POST",
        headers,
        query: Object.fromEntries(url.searchParams),
        rawBody,
        body: JSON.parse(rawBody.toString() || "null"),
      });
      res.writeHead(status.code).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks/shared/shk_${Math.random().toString(36).slice(2)}`,
    deliveries,
    status,
    close: () => new Promise((r) => server.close(() => r())),
  };
}
