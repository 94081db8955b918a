/**
 * The egress guard: which addresses outbound HTTP (core.http, integration clients, connection
 * verify, OAuth) may reach. Every address is classified after DNS resolution, with ipaddr.js named
 * ranges, never with string patterns; IPv6 forms that carry an IPv4 address (IPv4-mapped,
 * IPv4-compatible, NAT64 64:ff9b::/96 and /48, SIIT, 6to4) are unwrapped and the IPv4 address is
 * classified instead.
 *
 * - always refused: cloud metadata endpoints (by address and by name), link-local, unspecified,
 *   multicast, broadcast and other non-routable ranges, the service's own port on this machine and
 *   the PostgreSQL / Redis servers it uses (`protectedEndpoints`);
 * - loopback and private ranges (RFC 1918, CGNAT, IPv6 ULA): allowed by default (self-hosted
 *   Prometheus lives there), refused when the policy says `allowPrivateNetworks: false`, except
 *   for the CIDRs in `allowList`;
 * - everything else (public unicast) is allowed.
 *
 * The check happens inside the connection (egressDispatcher): the socket connects to the address
 * that was checked, so a DNS answer cannot change between the check and the connect.
 */
import { lookup } from "node:dns/promises";
import net from "node:net";
import os from "node:os";
import ipaddr from "ipaddr.js";
import { Agent, buildConnector } from "undici";
import { NonRetryableError, RetryableError } from "./errors";

export interface EgressPolicy {
  /** Loopback, RFC 1918, CGNAT and IPv6 unique-local addresses (default true). */
  allowPrivateNetworks: boolean;
  /** Addresses or CIDRs allowed even when private networks are refused (never metadata/link-local). */
  allowList: string[];
}
export const DEFAULT_EGRESS_POLICY: EgressPolicy = { allowPrivateNetworks: true, allowList: [] };

/** A host:port the service itself uses (its own listener, PostgreSQL, Redis): never a destination. */
export interface ProtectedEndpoint {
  host: string;
  port: number;
  label: string;
}

export type AddressClass = "public" | "private" | "blocked";
export interface AddressVerdict {
  /** The address that was classified (the embedded IPv4 address for IPv4-in-IPv6 forms). */
  address: string;
  class: AddressClass;
  /** ipaddr.js range name, or `metadata`. */
  range: string;
  reason: string;
}

export class EgressRefusedError extends NonRetryableError {
  readonly code = "EGRESS_REFUSED";
  constructor(message: string) {
    super(message);
    this.name = "EgressRefusedError";
  }
}

/** Cloud metadata services: AWS/GCP/Azure/OCI/DigitalOcean (169.254.169.254), AWS ECS, AWS IPv6, Azure WireServer, Alibaba. */
const METADATA_ADDRESSES = new Set(["169.254.169.254", "169.254.170.2", "fd00:ec2::254", "168.63.129.16", "100.100.100.200"]);
const METADATA_NAMES = new Set([
  "metadata",
  "metadata.google.internal",
  "metadata.goog",
  "instance-data",
  "instance-data.ec2.internal",
  "metadata.azure.internal",
]);

const PRIVATE_V4 = new Set(["loopback", "private", "carrierGradeNat"]);
const PRIVATE_V6 = new Set(["loopback", "uniqueLocal", "deprecatedSiteLocal"]);
const EMBEDS_V4 = new Set(["ipv4Mapped", "rfc6145", "rfc6052"]);

const REASONS: Record<string, string> = {
  metadata: "a cloud metadata endpoint",
  linkLocal: "a link-local address",
  unspecified: "the unspecified address",
  multicast: "a multicast address",
  broadcast: "the broadcast address",
  loopback: "a loopback address",
  private: "a private-network address",
  carrierGradeNat: "a carrier-grade NAT address",
  uniqueLocal: "an IPv6 unique-local address",
  deprecatedSiteLocal: "an IPv6 site-local address",
  teredo: "a Teredo tunnel address",
};

function verdict(address: string, range: string, cls: AddressClass): AddressVerdict {
  return { address, class: cls, range, reason: REASONS[range] ?? `a reserved address (${range})` };
}

/** The IPv4 address carried by an IPv6 one (mapped, compatible, NAT64, SIIT, 6to4), if any. */
function embeddedV4(v6: ipaddr.IPv6): ipaddr.IPv4 | null {
  const range = v6.range();
  const bytes = v6.toByteArray();
  if (EMBEDS_V4.has(range)) return ipaddr.IPv4.parse(bytes.slice(12).join("."));
  if (range === "6to4") return ipaddr.IPv4.parse(bytes.slice(2, 6).join("."));
  // IPv4-compatible ::a.b.c.d (deprecated): the first 96 bits are zero (:: and ::1 are handled by their ranges).
  if (bytes.slice(0, 12).every((b) => b === 0) && range !== "unspecified" && range !== "loopback") return ipaddr.IPv4.parse(bytes.slice(12).join("."));
  return null;
}

/** Classifies one IP address (any spelling ipaddr.js parses; zone ids are ignored). */
export function classifyAddress(input: string): AddressVerdict {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(input.replace(/^\[|\]$/g, "").replace(/%.*$/, ""));
  } catch {
    return verdict(input, "invalid", "blocked");
  }
  if (parsed.kind() === "ipv6") {
    const inner = embeddedV4(parsed as ipaddr.IPv6);
    if (inner) return classifyAddress(inner.toString());
  }
  const address = parsed.toNormalizedString();
  const canonical = parsed.toString();
  if (METADATA_ADDRESSES.has(canonical) || METADATA_ADDRESSES.has(address)) return verdict(canonical, "metadata", "blocked");
  const range = parsed.range();
  if (range === "unicast") return verdict(canonical, range, "public");
  const privateRanges = parsed.kind() === "ipv4" ? PRIVATE_V4 : PRIVATE_V6;
  return verdict(canonical, range, privateRanges.has(range) ? "private" : "blocked");
}

function inAllowList(address: string, list: string[]): boolean {
  const ip = ipaddr.parse(address);
  for (const entry of list) {
    try {
      const [net, bits] = entry.includes("/") ? ipaddr.parseCIDR(entry) : [ipaddr.parse(entry), ipaddr.parse(entry).kind() === "ipv4" ? 32 : 128];
      if (net.kind() === ip.kind() && ip.match(net, bits)) return true;
    } catch {
      /* entries are validated when saved */
    }
  }
  return false;
}

/** Whether `entry` is an address or CIDR the allow list accepts. */
export function isValidAllowEntry(entry: string): boolean {
  try {
    if (entry.includes("/")) ipaddr.parseCIDR(entry);
    else ipaddr.parse(entry);
    return true;
  } catch {
    return false;
  }
}

function localAddresses(): Set<string> {
  const out = new Set<string>();
  for (const list of Object.values(os.networkInterfaces())) for (const a of list ?? []) out.add(classifyAddress(a.address).address);
  return out;
}

export type Resolver = (host: string) => Promise<string[]>;
const systemResolver: Resolver = async (host) => (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

export interface EgressGuard {
  /** Resolves `host`, checks every address (and the port) and returns the addresses to connect to; throws EgressRefusedError. */
  check(host: string, port: number): Promise<string[]>;
}

export interface EgressGuardOptions {
  policy?: () => EgressPolicy | Promise<EgressPolicy>;
  protectedEndpoints?: () => ProtectedEndpoint[];
  resolve?: Resolver;
}

export function createEgressGuard(opts: EgressGuardOptions = {}): EgressGuard {
  const resolve = opts.resolve ?? systemResolver;
  const policyOf = opts.policy ?? (() => DEFAULT_EGRESS_POLICY);

  async function resolveHost(host: string): Promise<string[]> {
    const bare = host.replace(/^\[|\]$/g, "");
    if (net.isIP(bare)) return [bare];
    return resolve(bare);
  }

  /** The protected endpoint this address:port is, if any (own port: any local address; others: their host's addresses, or any local one when the host is local). */
  async function protectedMatch(address: string, port: number, cls: AddressVerdict): Promise<ProtectedEndpoint | undefined> {
    const endpoints = (opts.protectedEndpoints?.() ?? []).filter((e) => e.port === port);
    if (!endpoints.length) return undefined;
    const isLocal = cls.range === "loopback" || cls.range === "unspecified" || localAddresses().has(address);
    for (const e of endpoints) {
      const addrs = await resolveHost(e.host).catch(() => [] as string[]);
      const targets = addrs.map((a) => classifyAddress(a));
      if (targets.some((t) => t.address === address)) return e;
      if (isLocal && (targets.length === 0 || targets.some((t) => t.range === "loopback" || t.range === "unspecified" || localAddresses().has(t.address))))
        return e;
    }
    return undefined;
  }

  return {
    async check(host, port) {
      const name = host
        .replace(/^\[|\]$/g, "")
        .replace(/\.$/, "")
        .toLowerCase();
      const where = `${net.isIP(name) === 6 ? `[${name}]` : name}:${port}`;
      if (METADATA_NAMES.has(name)) throw new EgressRefusedError(`Refusing to call ${where}: it is a cloud metadata endpoint (egress policy).`);
      let addresses: string[];
      try {
        addresses = await resolveHost(name);
      } catch (e) {
        throw new RetryableError(`Cannot resolve ${name}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
      }
      if (!addresses.length) throw new RetryableError(`Cannot resolve ${name}: no addresses`);
      const policy = await policyOf();
      // Every answer must pass: a name that resolves to one public and one metadata address is refused.
      for (const a of addresses) {
        const v = classifyAddress(a);
        const via = v.address === name ? "" : net.isIP(name) ? ` (that is ${v.address})` : ` (${name} resolves to ${v.address})`;
        if (v.class === "blocked") throw new EgressRefusedError(`Refusing to call ${where}${via}: ${v.reason} is always blocked (egress policy).`);
        if (v.class === "private" && !policy.allowPrivateNetworks && !inAllowList(v.address, policy.allowList)) {
          throw new EgressRefusedError(
            `Refusing to call ${where}${via}: ${v.reason}, and the egress policy refuses private networks (an admin can allow it in Settings).`,
          );
        }
        const own = await protectedMatch(v.address, port, v);
        if (own) throw new EgressRefusedError(`Refusing to call ${where}${via}: it is ${own.label}, which automations may never reach (egress policy).`);
      }
      return addresses;
    },
  };
}

const GUARD = Symbol.for("conveyor.egressGuard");
type G = typeof globalThis & { [GUARD]?: { guard: EgressGuard; agent: Agent } };

/** An undici dispatcher whose sockets connect only to addresses the guard checked. */
export function egressDispatcher(guard: EgressGuard): Agent {
  const connector = buildConnector({ timeout: 10_000 });
  return new Agent({
    connect(options, callback) {
      const port = Number(options.port) || (options.protocol === "https:" ? 443 : 80);
      guard.check(options.hostname, port).then(
        ([address]) =>
          connector(
            { ...options, hostname: address!, servername: net.isIP(options.hostname) ? options.servername : (options.servername ?? options.hostname) },
            callback,
          ),
        (error: Error) => callback(error, null),
      );
    },
  });
}

/** The process-wide guard (the server installs one with the stored policy and its protected endpoints). */
export function setEgressGuard(guard: EgressGuard): void {
  const g = globalThis as G;
  void g[GUARD]?.agent.close().catch(() => {});
  g[GUARD] = { guard, agent: egressDispatcher(guard) };
}

export function getEgress(): { guard: EgressGuard; agent: Agent } {
  const g = globalThis as G;
  if (!g[GUARD]) {
    const guard = createEgressGuard();
    g[GUARD] = { guard, agent: egressDispatcher(guard) };
  }
  return g[GUARD];
}
