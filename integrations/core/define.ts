/**
 * The integration framework: `defineIntegration`, `defineComponent`, `defineTrigger`.
 *
 * A component is a declaration (key, titles, zod config schema with UI metadata, output event type
 * and schema, an example) plus `run(ctx)`. The same zod schema drives save-time validation, run-time
 * validation after expressions are resolved, the editor's generated form (via JSON Schema) and the
 * REST catalog. Components never touch the database: everything they need arrives in the context.
 *
 * Triggers own their lifecycle: `setup` when an automation is enabled/saved, `teardown` when it is
 * disabled or the node removed, `verify` of each delivery, `match` turning one delivery into events,
 * and an optional periodic `maintain` for upstream registrations that expire.
 */
import type { z } from "zod";
import type { HttpClient } from "./http";
import type { TriggerDefinition } from "./trigger-contract";
import { isoTime } from "@/db/iso-time";

// ---------------------------------------------------------------------------------------------
// Events

/** The envelope every trigger and component emits. `timestamp` is ISO 8601 UTC. */
export interface Envelope<TData = unknown> {
  type: string;
  timestamp: string;
  data: TData;
}

export function envelope<T>(type: string, data: T, at: Date = new Date()): Envelope<T> {
  return { type, timestamp: isoTime(at), data };
}

// ---------------------------------------------------------------------------------------------
// Logging

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

// ---------------------------------------------------------------------------------------------
// Connections

/** OAuth token source handed to integrations for an oauth2 connection. Refresh is serialised per connection across processes. */
export interface OAuthTokenSource {
  /** A valid access token, refreshed proactively when it expires within a minute. */
  getAccessToken(): Promise<string>;
  /** Forces a refresh (after a 401). Returns false when the refresh was refused (connection then needs reconnect). */
  refresh(): Promise<boolean>;
}

/** What a component / trigger / resource loader gets for its connection. */
export interface ConnectionHandle<TConn = Record<string, unknown>> {
  id: string;
  integration: string;
  /** Parsed connection config with secrets decrypted (never log it). */
  config: TConn;
  /** Non-secret state the integration stored (e.g. tracker cloud id, site URL). */
  state: Record<string, unknown>;
  /** Present for oauth2 connections. */
  oauth?: OAuthTokenSource;
  /** Persist non-secret state changes (e.g. after choosing a site). */
  saveState?(patch: Record<string, unknown>): Promise<void>;
}

export interface OAuthTokens {
  accessToken: string;
  refreshToken?: string;
  /** Absolute expiry, epoch ms. */
  expiresAt?: number;
  scope?: string;
  tokenType?: string;
}

/** Provider-side description of an OAuth 2.0 authorization-code flow (Atlassian 3LO for the tracker). */
export interface OAuthProvider<TConn> {
  /** URL of the consent page the browser is sent to. */
  authorizeUrl(conn: TConn, args: { state: string; redirectUri: string; codeChallenge?: string }): string;
  exchangeCode(conn: TConn, args: { code: string; redirectUri: string; codeVerifier?: string; http: HttpClient }): Promise<OAuthTokens>;
  /** Refresh; rotating providers return a new refresh token which the framework stores before use. */
  refresh(conn: TConn, args: { refreshToken: string; http: HttpClient }): Promise<OAuthTokens>;
  /**
   * After a successful exchange: discover state such as accessible sites.
   * Returning `choices` (more than one site) makes the UI ask the user to pick one, then `select` is called.
   */
  afterConnect?(
    conn: TConn,
    args: { accessToken: string; http: HttpClient },
  ): Promise<{ state?: Record<string, unknown>; choices?: Array<{ value: string; label: string; state: Record<string, unknown> }> }>;
}

export interface ConnectionDefinition<TSchema extends z.ZodType = z.ZodType> {
  kind: "form" | "oauth2";
  /** zod schema of the settings; secret fields carry `.meta(ui({ sensitive: true }))` and are stored encrypted. */
  schema: TSchema;
  /** One cheap live call; throws an Error whose message says exactly what failed. */
  verify?(ctx: { connection: ConnectionHandle<z.output<TSchema>>; http: HttpClient; signal?: AbortSignal }): Promise<{ message?: string } | void>;
  oauth?: OAuthProvider<z.output<TSchema>>;
}

// ---------------------------------------------------------------------------------------------
// Components

export interface RunInfo {
  runId: string;
  automationId: string;
  workspaceId: string;
  nodeId: string;
  nodeName: string;
  /** 1-based attempt number of this step. */
  attempt: number;
  /** Stable per step (across retries and resumes): use as an upstream idempotency key. */
  stepId: string;
}

/** Returned by a component to reschedule itself later without holding a worker (polling, waits). */
export interface WaitResult {
  kind: "wait";
  /** Delay before the component runs again (its `ctx.state` then holds `state`). */
  delayMs: number;
  state: unknown;
  /** Shown in the run view while waiting. */
  reason?: string;
}

/** Returned by a component to end its branch without emitting (core.filter). */
export interface StopResult {
  kind: "stop";
  reason?: string;
}

export type ComponentResult<TData = unknown> = Envelope<TData> | WaitResult | StopResult;

/** Where a remembered value lives: this automation's own memory, or the workspace's (shared by its automations). */
export type MemoryScope = "automation" | "workspace";

export interface RememberedValue {
  value: unknown;
  /** The run and node that stored it. */
  storedBy: { runId: string; nodeId: string; automationId: string };
  storedAt: string;
  expiresAt: string;
}

/**
 * What automations remember between runs (`core.remember` / `core.recall`): one value per key and
 * scope, kept for a while. Test runs read and write a memory of their own, so testing a node never
 * changes what production runs recall. Errors (a key or value over the limits, a full workspace) are
 * permanent step failures with a message naming the limit.
 */
export interface MemoryHandle {
  get(key: string, scope: MemoryScope): Promise<RememberedValue | undefined>;
  set(key: string, value: unknown, opts: { scope: MemoryScope; keepMs: number }): Promise<{ replaced: boolean; expiresAt: string }>;
  /** True when a live value was forgotten. */
  delete(key: string, scope: MemoryScope): Promise<boolean>;
}

export interface ComponentContext<TConfig = unknown, TConn = Record<string, unknown>> {
  /** Inputs after expression resolution, parsed by the config schema. */
  config: TConfig;
  /** The node's connection; undefined for components that need none. */
  connection: ConnectionHandle<TConn> | undefined;
  /** Shared outbound client with timeouts/limits bound to this step's abort signal (no base URL, no auth). */
  http: HttpClient;
  log: Logger;
  signal: AbortSignal;
  run: RunInfo;
  /** The trigger envelope and earlier steps' envelopes (by node name). */
  trigger: Envelope;
  steps: Record<string, Envelope>;
  /** State returned by the previous `wait` of this same step, or undefined on the first call. */
  state: unknown;
  /** What automations remember between runs (made on first use). */
  memory: MemoryHandle;
  now(): Date;
  /** Builds this component's output envelope. */
  emit<T>(data: T): Envelope<T>;
  wait(delayMs: number, state: unknown, reason?: string): WaitResult;
  stop(reason?: string): StopResult;
}

/** A problem found in a node's config, by field path inside the config ("" for the node as a whole). */
export interface ConfigProblem {
  path: string;
  message: string;
}

/** What a save-time upstream check gets (see `check` on components and triggers). */
export interface CheckContext<TConn = Record<string, unknown>> {
  connection: ConnectionHandle<TConn>;
  /** Bounded by the save's check time limit. */
  http: HttpClient;
  signal: AbortSignal;
}

/** What every catalog entry declares, trigger or component. */
export interface UnitDeclaration<TSchema extends z.ZodType = z.ZodType, TOut extends z.ZodType = z.ZodType> {
  /** `<integration>.<camelName>`, stable forever. */
  key: string;
  title: string;
  description: string;
  /** Longer documentation shown in the node's Docs tab (markdown). */
  docs?: string;
  config: TSchema;
  /** The emitted envelope `type`. */
  outputType: string;
  /** zod schema of the emitted `data`. */
  output: TOut;
  /** Example `data` (must parse with `output`; contains no secrets). */
  example: z.input<TOut>;
  /** Whether a connection is required (true for every integration unit except core ones). */
  needsConnection?: boolean;
  /** Former defaults of fields that became required; see `withLegacyDefaults`. */
  legacyDefaults?: Record<string, unknown>;
}

export interface ComponentDefinition<TSchema extends z.ZodType = z.ZodType, TOut extends z.ZodType = z.ZodType, TConn = any>
  extends UnitDeclaration<TSchema, TOut> {
  kind: "component";
  /** Extra cross-field validation at save time (returns problems by field path). */
  validate?(config: z.output<TSchema>, ctx: { connection?: ConnectionHandle<TConn> }): Array<{ path: string; message: string }>;
  /**
   * Save-time check against the upstream (e.g. that the chosen service desk exists), run after the config
   * passed its schema and `validate`. Report only definite answers; when the upstream cannot tell (network,
   * auth, time limit) throw or return nothing: the save goes on and the run reports it. Skip values that are
   * expressions (they are resolved at run time).
   */
  check?(config: z.output<TSchema>, ctx: CheckContext<TConn>): Promise<ConfigProblem[]>;
  /** Retry policy override. */
  retry?: { maxAttempts?: number };
  run(ctx: ComponentContext<z.output<TSchema>, TConn>): Promise<ComponentResult<z.output<TOut>>>;
}

// ---------------------------------------------------------------------------------------------
// Triggers: the contract is in ./trigger-contract.ts

export type * from "./trigger-contract";

// ---------------------------------------------------------------------------------------------
// Resources (dynamic dropdowns)

export interface ResourceOption {
  value: string;
  label: string;
  description?: string;
}

export interface ResourceLoaderContext<TConn = Record<string, unknown>> {
  connection: ConnectionHandle<TConn>;
  http: HttpClient;
  /** Values of the fields listed in `dependsOn`, plus everything else currently in the node's config. */
  config: Record<string, unknown>;
  search?: string;
  cursor?: string;
  signal?: AbortSignal;
}

export type ResourceLoader<TConn = any> = (ctx: ResourceLoaderContext<TConn>) => Promise<{ options: ResourceOption[]; nextCursor?: string | null }>;

// ---------------------------------------------------------------------------------------------
// Integrations

export interface IntegrationDefinition<TConnSchema extends z.ZodType = z.ZodType> {
  key: string;
  title: string;
  description: string;
  /** lucide icon name or a path under /public/integrations/. */
  icon: string;
  connection?: ConnectionDefinition<TConnSchema>;
  components: AnyComponent[];
  triggers: AnyTrigger[];
  resources?: Record<string, ResourceLoader<z.output<TConnSchema>>>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyComponent = ComponentDefinition<any, any, any>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyTrigger = TriggerDefinition<any, any, any>;
export type AnyIntegration = IntegrationDefinition<z.ZodType>;

/**
 * A stored node config as its unit reads it: top-level fields that were optional with a schema default when
 * the automation was saved, and are required now, get that former default (`legacyDefaults`). Applied where
 * saved configs are read (runs of saved versions, webhook deliveries, trigger set-up), never when a
 * document is validated for saving, so new saves must give the field and saved versions behave as before.
 */
export function withLegacyDefaults(unit: { legacyDefaults?: Record<string, unknown> }, config: unknown): unknown {
  if (!unit.legacyDefaults || !config || typeof config !== "object" || Array.isArray(config)) return config;
  const c = config as Record<string, unknown>;
  const missing = Object.entries(unit.legacyDefaults).filter(([k]) => c[k] === undefined);
  return missing.length ? { ...c, ...Object.fromEntries(missing.map(([k, v]) => [k, structuredClone(v)])) } : config;
}

export function defineComponent<TSchema extends z.ZodType, TOut extends z.ZodType, TConn = any>(
  def: Omit<ComponentDefinition<TSchema, TOut, TConn>, "kind">,
): ComponentDefinition<TSchema, TOut, TConn> {
  return { needsConnection: true, ...def, kind: "component" };
}

export function defineTrigger<TSchema extends z.ZodType, TOut extends z.ZodType, TConn = any>(
  def: Omit<TriggerDefinition<TSchema, TOut, TConn>, "kind">,
): TriggerDefinition<TSchema, TOut, TConn> {
  return { needsConnection: true, jsonBody: true, ...def, kind: "trigger" };
}

export function defineIntegration<TConnSchema extends z.ZodType>(def: IntegrationDefinition<TConnSchema>): IntegrationDefinition<TConnSchema> {
  const prefix = def.key + ".";
  for (const unit of [...def.components, ...def.triggers]) {
    if (!unit.key.startsWith(prefix)) throw new Error(`${unit.key} must start with "${prefix}"`);
  }
  return def;
}
