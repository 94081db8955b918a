/**
 * Shared in-memory state of the fake Atlassian: clock, OAuth apps, Atlassian accounts, sites (cloud ids)
 * with their Jira data (see `site.ts`), OAuth codes and tokens, injected faults and a request log.
 * Service-desk and ops state lives in its own classes, reachable with `state.extension(name, make)`.
 */
import { randomBytes } from "node:crypto";
import { JiraSite, type IssueEvent } from "./site";

export interface OAuthApp {
  clientId: string;
  clientSecret: string;
  name: string;
  /** Registered callback URLs; empty accepts any http(s) callback (demo convenience). */
  callbackUrls: string[];
  /** Non-public apps get webhook deliveries only for webhooks their owner registered. */
  distribution: "public" | "private";
  ownerAccountId?: string;
}

export interface FakeUser {
  accountId: string;
  displayName: string;
  emailAddress?: string;
  active: boolean;
  accountType: "atlassian" | "app" | "customer";
}

export interface AccessTokenRecord {
  clientId: string;
  accountId: string;
  scopes: string[];
  expiresAt: number;
}
export interface RefreshTokenRecord {
  clientId: string;
  accountId: string;
  scopes: string[];
  valid: boolean;
  issuedAt: number;
}
interface AuthCode {
  clientId: string;
  redirectUri: string;
  accountId: string;
  scopes: string[];
  expiresAt: number;
  used: boolean;
}

export interface Fault {
  method?: string;
  /** Substring or regular expression matched against the request path. */
  path?: string | RegExp;
  /** The status answered instead of handling the request (ignored with `lose`). */
  status?: number;
  /**
   * The request is handled as usual (an issue is created, an alert request accepted) and its answer is lost:
   * "reset" closes the connection without an answer, "hang" never answers (the caller times out).
   */
  lose?: "reset" | "hang";
  /** Seconds, sent as `Retry-After`. */
  retryAfter?: number;
  body?: unknown;
  /** How many requests it applies to (default 1). */
  times?: number;
}

export interface LoggedRequest {
  method: string;
  path: string;
  query: Record<string, string | string[]>;
  body: unknown;
  status: number;
  accountId?: string;
  at: number;
  /** Set when a `lose` fault dropped the answer (`status` is what the handler answered). */
  lost?: "reset" | "hang";
}

export const token = (prefix: string) => `${prefix}-${randomBytes(18).toString("base64url")}`;

export class FakeAtlassianState {
  /** Added to the wall clock (tests move time forward with `advance`). */
  clockOffsetMs = 0;
  /** Public base URL of the fake (set by the server once listening). */
  baseUrl = "http://127.0.0.1";
  apps = new Map<string, OAuthApp>();
  users = new Map<string, FakeUser>();
  sites = new Map<string, JiraSite>();
  /** Account that consents on the authorize page. */
  consentAccountId = "";
  /** Sites the consenting user grants (default: every site they belong to). */
  consentSiteIds?: string[];
  /** "auto": /authorize redirects back at once; "page": shows an Accept button. */
  consentMode: "auto" | "page" = "auto";
  accessTokenTtlSec = 3600;
  codes = new Map<string, AuthCode>();
  accessTokens = new Map<string, AccessTokenRecord>();
  refreshTokens = new Map<string, RefreshTokenRecord>();
  /** Grants per `${clientId}:${accountId}`: the sites the user granted to the app. */
  grants = new Map<string, Set<string>>();
  faults: Fault[] = [];
  requests: LoggedRequest[] = [];
  /** Delay between webhook delivery retries, ms. */
  webhookRetryDelayMs = 200;
  webhookMaxRetries = 3;
  private listeners: Array<(site: JiraSite, event: IssueEvent) => void> = [];
  private extensions = new Map<string, unknown>();

  now(): Date {
    return new Date(Date.now() + this.clockOffsetMs);
  }

  advance(ms: number) {
    this.clockOffsetMs += ms;
  }

  addApp(app: Partial<OAuthApp> & { clientId: string; clientSecret: string }): OAuthApp {
    const full: OAuthApp = { name: "Conveyor", callbackUrls: [], distribution: "public", ...app };
    this.apps.set(full.clientId, full);
    return full;
  }

  addUser(user: Partial<FakeUser> & { accountId: string; displayName: string }): FakeUser {
    const full: FakeUser = { active: true, accountType: "atlassian", ...user };
    this.users.set(full.accountId, full);
    return full;
  }

  addSite(cloudId: string, name: string): JiraSite {
    const site = new JiraSite(this, cloudId, name);
    this.sites.set(cloudId, site);
    return site;
  }

  site(cloudId: string): JiraSite | undefined {
    return this.sites.get(cloudId);
  }

  /** Service-desk and ops state lives beside the Jira state: `state.extension("ops", () => new OpsState(...))`. */
  extension<T>(name: string, make: () => T): T {
    if (!this.extensions.has(name)) this.extensions.set(name, make());
    return this.extensions.get(name) as T;
  }

  onIssueEvent(listener: (site: JiraSite, event: IssueEvent) => void) {
    this.listeners.push(listener);
  }

  emit(site: JiraSite, event: IssueEvent) {
    for (const l of this.listeners) l(site, event);
  }

  // ---- OAuth -------------------------------------------------------------------------------

  issueCode(args: Omit<AuthCode, "expiresAt" | "used">): string {
    const code = token("code");
    this.codes.set(code, { ...args, expiresAt: this.now().getTime() + 10 * 60_000, used: false });
    const key = `${args.clientId}:${args.accountId}`;
    const granted = this.grants.get(key) ?? new Set<string>();
    const member = [...this.sites.values()].filter((s) => s.members.has(args.accountId)).map((s) => s.cloudId);
    for (const id of this.consentSiteIds ?? member) granted.add(id);
    this.grants.set(key, granted);
    return code;
  }

  takeCode(code: string): AuthCode | undefined {
    const rec = this.codes.get(code);
    if (!rec || rec.used || rec.expiresAt < this.now().getTime()) return undefined;
    rec.used = true;
    return rec;
  }

  issueTokens(clientId: string, accountId: string, scopes: string[]) {
    const accessToken = token("at");
    this.accessTokens.set(accessToken, { clientId, accountId, scopes, expiresAt: this.now().getTime() + this.accessTokenTtlSec * 1000 });
    const out: { access_token: string; expires_in: number; scope: string; token_type: string; refresh_token?: string } = {
      access_token: accessToken,
      expires_in: this.accessTokenTtlSec,
      scope: scopes.join(" "),
      token_type: "Bearer",
    };
    if (scopes.includes("offline_access")) {
      const refresh = token("rt");
      this.refreshTokens.set(refresh, { clientId, accountId, scopes, valid: true, issuedAt: this.now().getTime() });
      out.refresh_token = refresh;
    }
    return out;
  }

  /** Looks up a live access token; "expired" when it exists but is past its expiry. */
  accessToken(value: string): AccessTokenRecord | "expired" | undefined {
    const rec = this.accessTokens.get(value);
    if (!rec) return undefined;
    return rec.expiresAt <= this.now().getTime() ? "expired" : rec;
  }

  /** Test control: every access token issued so far expires now. */
  expireAccessTokens() {
    const now = this.now().getTime();
    for (const rec of this.accessTokens.values()) rec.expiresAt = Math.min(rec.expiresAt, now);
  }

  /** Test control: the user revokes the app (refresh tokens stop working, access tokens too). */
  revokeGrant(clientId: string, accountId: string) {
    for (const rec of this.refreshTokens.values()) if (rec.clientId === clientId && rec.accountId === accountId) rec.valid = false;
    for (const [k, rec] of this.accessTokens) if (rec.clientId === clientId && rec.accountId === accountId) this.accessTokens.delete(k);
    this.grants.delete(`${clientId}:${accountId}`);
  }

  grantedSites(clientId: string, accountId: string): JiraSite[] {
    const ids = this.grants.get(`${clientId}:${accountId}`) ?? new Set<string>();
    return [...ids].map((id) => this.sites.get(id)).filter((s): s is JiraSite => Boolean(s));
  }

  // ---- Faults ------------------------------------------------------------------------------

  /** Queues a fault: the next `times` matching requests answer `status` (429 gets `Retry-After`), or lose their answer (`lose`). */
  fail(fault: Fault) {
    this.faults.push({ times: 1, ...fault });
  }

  takeFault(method: string, path: string): Fault | undefined {
    const i = this.faults.findIndex(
      (f) => (!f.method || f.method.toUpperCase() === method) && (!f.path || (typeof f.path === "string" ? path.includes(f.path) : f.path.test(path))),
    );
    if (i < 0) return undefined;
    const f = this.faults[i]!;
    f.times = (f.times ?? 1) - 1;
    if (f.times <= 0) this.faults.splice(i, 1);
    return f;
  }
}
