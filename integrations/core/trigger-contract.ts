/**
 * The trigger contract: what a trigger declares (`TriggerDefinition`, made with `defineTrigger` in
 * ./define.ts) and what its lifecycle calls receive: `setup` / `teardown` / `maintain` with shared
 * upstream registrations, `verify` and `match` of each delivery. Re-exported by ./define.ts, where
 * integrations import it from.
 */
import type { z } from "zod";
import type { HttpClient } from "./http";
import type { CheckContext, ConfigProblem, ConnectionHandle, Logger, UnitDeclaration } from "./define";

export interface IncomingDelivery {
  method: string;
  headers: Record<string, string>;
  query: Record<string, string>;
  rawBody: Buffer;
  /** Parsed JSON body (the ingress rejects invalid JSON with 400 before `verify`/`match` for JSON triggers). */
  body: unknown;
}

export interface MatchedEvent<TData = unknown> {
  data: TData;
  /** Deduplication key: the same key on the same intake never starts a second run. */
  dedupeKey?: string;
  /** Overrides the trigger's outputType for this event (rarely needed). */
  type?: string;
}

export interface IntakeInfo {
  id: string;
  /** Public URL the upstream posts to. */
  url: string;
  /** The unguessable token inside the URL. */
  token: string;
}

/** Reference-counted upstream registrations, shared by several trigger nodes (e.g. one Jira webhook per connection). */
export interface SharedRegistrations {
  /**
   * Ensures a registration identified by `key` exists and counts this trigger node as a user.
   * `create` runs only when none exists yet; `update` (optional) runs when it exists and this user changes what it needs.
   */
  acquire(
    key: string,
    create: () => Promise<RegistrationRecord>,
    update?: (existing: RegistrationRecord) => Promise<RegistrationRecord>,
  ): Promise<RegistrationRecord>;
  /** Drops this node's use; `destroy` runs when it was the last user. */
  release(key: string, destroy: (existing: RegistrationRecord) => Promise<void>): Promise<void>;
  /** Current registration, if any. */
  get(key: string): Promise<RegistrationRecord | undefined>;
  /** Configs of every enabled trigger node currently using `key` (to merge event lists / JQL filters). */
  users(key: string): Promise<Array<{ automationId: string; nodeId: string; triggerKey: string; config: unknown }>>;
  /** Replace the stored record (after a refresh of its expiry). */
  save(key: string, record: RegistrationRecord): Promise<void>;
}

export interface RegistrationRecord {
  upstreamId: string;
  expiresAt?: string;
  data?: Record<string, unknown>;
}

export interface TriggerSetupContext<TConfig = unknown, TConn = Record<string, unknown>> {
  config: TConfig;
  connection: ConnectionHandle<TConn> | undefined;
  http: HttpClient;
  log: Logger;
  /** This trigger node's own intake (its webhook URL). */
  intake: IntakeInfo;
  /** The connection-wide intake used by shared registrations (`shared` triggers). */
  sharedIntake?: IntakeInfo;
  registrations: SharedRegistrations;
  automationId: string;
  nodeId: string;
}

export interface TriggerMatchContext<TConfig = unknown, TConn = Record<string, unknown>> {
  config: TConfig;
  connection: ConnectionHandle<TConn> | undefined;
  intake: IntakeInfo;
  now(): Date;
  /** The installation's default tolerance for timestamped signatures, in seconds (./signed-delivery.ts). */
  signatureToleranceS?: number;
}

/**
 * What `verify` may return: a timestamped signature it accepted, which the ingress stores with the
 * delivery so that a second delivery with the same signature is refused as a replay (401).
 */
export interface VerifiedDelivery {
  replay?: { signature: string; expiresAtMs: number };
}

export interface TriggerDefinition<TSchema extends z.ZodType = z.ZodType, TOut extends z.ZodType = z.ZodType, TConn = any>
  extends UnitDeclaration<TSchema, TOut> {
  kind: "trigger";
  /**
   * How events arrive:
   * - `webhook`: the node has its own intake URL (`/hooks/<token>`),
   * - `shared-webhook`: deliveries arrive on the connection's shared intake and are offered to every
   *   enabled node of the same `sharedKey` on that connection (Jira allows one callback per OAuth app),
   * - `manual`: started by hand / API only, `schedule`: started by the scheduler.
   */
  delivery: "webhook" | "shared-webhook" | "manual" | "schedule";
  sharedKey?: string;
  /** JSON body required (default true for webhook deliveries). */
  jsonBody?: boolean;
  validate?(config: z.output<TSchema>, ctx: { connection?: ConnectionHandle<TConn> }): Array<{ path: string; message: string }>;
  /** Save-time check against the upstream, as on components. */
  check?(config: z.output<TSchema>, ctx: CheckContext<TConn>): Promise<ConfigProblem[]>;
  setup?(ctx: TriggerSetupContext<z.output<TSchema>, TConn>): Promise<{ registration?: RegistrationRecord } | void>;
  teardown?(ctx: TriggerSetupContext<z.output<TSchema>, TConn>): Promise<void>;
  /** Periodic upkeep (e.g. extend a webhook that expires after 30 days). */
  maintain?(ctx: TriggerSetupContext<z.output<TSchema>, TConn>): Promise<void>;
  /**
   * Authenticates a delivery. Throw `DeliveryUnauthorizedError` to answer 401 and store nothing; return
   * `{ replay }` for a timestamped signature that must be accepted once only.
   */
  verify?(delivery: IncomingDelivery, ctx: TriggerMatchContext<z.output<TSchema>, TConn>): void | VerifiedDelivery | Promise<void | VerifiedDelivery>;
  /** Turns a delivery into zero or more events. Throw `DeliveryRejectedError` for malformed payloads. */
  match(
    delivery: IncomingDelivery,
    ctx: TriggerMatchContext<z.output<TSchema>, TConn>,
  ): MatchedEvent<z.output<TOut>>[] | Promise<MatchedEvent<z.output<TOut>>[]>;
  /** For `schedule` triggers: next fire time after `after`, or null. */
  nextFireAt?(config: z.output<TSchema>, after: Date): Date | null;
  /** Extra snippet for the trigger panel (e.g. alertmanager.yml receiver). */
  setupInstructions?(args: {
    url: string;
    config: z.output<TSchema>;
    connection?: ConnectionHandle<TConn>;
  }): { title: string; language?: string; text: string }[];
}
