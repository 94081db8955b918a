/**
 * Runs inside a loopback-only network namespace (egress-netns.test.ts starts it under
 * `unshare -n`), so no request it makes can leave the machine. It tries hostile destinations
 * through the real HTTP client, the server's egress policy and a connection verify, and prints one
 * JSON line per case: { name, outcome: "ok" | "refused" | "network", message }.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createHttpClient } from "../http";
import { EgressRefusedError, createEgressGuard, egressDispatcher, type EgressGuardOptions } from "../egress";
import { createTestDeps } from "@/server/testing";
import { setupOwner } from "@/server/services/users/setup-owner";
import { getUserActor } from "@/server/services/users/get-user-actor";
import { installEgressGuard, updateEgressPolicy } from "@/server/services/settings/egress-policy";
import { createConnection, verifyConnection } from "@/server/services/connections";

type Outcome = { name: string; outcome: "ok" | "refused" | "network"; message: string };
const results: Outcome[] = [];

async function attempt(name: string, url: string, client = createHttpClient({ timeoutMs: 3000 })): Promise<void> {
  try {
    const res = await client.get(url);
    results.push({ name, outcome: "ok", message: String(res.status) });
  } catch (e) {
    results.push({ name, outcome: e instanceof EgressRefusedError ? "refused" : "network", message: (e as Error).message });
  }
}

function guarded(opts: EgressGuardOptions) {
  const guard = createEgressGuard(opts);
  return createHttpClient({ timeoutMs: 3000, egress: { guard, agent: egressDispatcher(guard) } });
}

const server = http.createServer((req, res) => {
  const url = new URL(req.url ?? "/", "http://x");
  if (url.pathname === "/redirect") {
    res.writeHead(302, { location: url.searchParams.get("to") ?? "/ok" });
    res.end();
    return;
  }
  res.writeHead(200, { "content-type": "application/json" });
  res.end('{"status":"success","data":{"result":[]}}');
});
await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
const port = (server.address() as AddressInfo).port;
const local = `http://127.0.0.1:${port}`;

// 1. The issue's spellings of metadata and link-local, literal in the URL.
const hostile: Record<string, string> = {
  "ipv4-mapped metadata": "http://[::ffff:169.254.169.254]/latest/meta-data/",
  "ipv4-mapped metadata, long form": "http://[0:0:0:0:0:ffff:a9fe:a9fe]/",
  "ipv4-compatible metadata": "http://[::169.254.169.254]/",
  "nat64 metadata": "http://[64:ff9b::a9fe:a9fe]/",
  "6to4 metadata": "http://[2002:a9fe:a9fe::]/",
  "azure wireserver": "http://168.63.129.16/machine?comp=goalstate",
  "ipv6 link-local febf::1": "http://[febf::1]/",
  "ipv6 link-local fe80::1": "http://[fe80::1]/",
  "aws ipv6 metadata": "http://[fd00:ec2::254]/",
  "metadata, decimal ipv4": "http://2852039166/",
  "metadata, hex ipv4": "http://0xa9.0xfe.0xa9.0xfe/",
  "metadata, octal ipv4": "http://0251.0376.0251.0376/",
  "metadata, short ipv4": "http://169.254.43518/",
  "metadata, mixed-radix ipv4": "http://0xa9.254.0251.0xfe/",
  "gcp metadata name": "http://metadata.google.internal/computeMetadata/v1/",
  "gcp metadata name, trailing dot and capitals": "http://METADATA.google.internal./computeMetadata/v1/",
  "alibaba metadata": "http://100.100.100.200/latest/meta-data/",
  unspecified: "http://0.0.0.0:80/",
};
for (const [name, url] of Object.entries(hostile)) await attempt(name, url);

// 2. Loopback is allowed by default; a redirect to metadata is refused on that hop.
await attempt("loopback allowed by default", `${local}/ok`);
await attempt("redirect to metadata", `${local}/redirect?to=${encodeURIComponent("http://169.254.169.254/latest/meta-data/")}`);
await attempt("redirect to mapped metadata", `${local}/redirect?to=${encodeURIComponent("http://[::ffff:a9fe:a9fe]/")}`);
await attempt("redirect to loopback", `${local}/redirect?to=${encodeURIComponent(`${local}/ok`)}`);

// 3. Names: every resolved address is checked (a rebinding answer with one bad address is refused).
const names: Record<string, string[]> = {
  "rebind.test": ["93.184.216.34", "169.254.169.254"],
  "mapped.test": ["::ffff:169.254.169.254"],
  "public.test": ["93.184.216.34"],
  "db.internal": ["10.0.0.7"],
  "cache.internal": ["10.0.0.8"],
};
const resolve = async (host: string) => {
  const found = names[host];
  if (!found) throw Object.assign(new Error(`unknown ${host}`), { code: "ENOTFOUND" });
  return found;
};
const endpoints = [
  { host: "127.0.0.1", port, label: "this service's own port" },
  { host: "db.internal", port: 5432, label: "the PostgreSQL server this service uses" },
  { host: "cache.internal", port: 6379, label: "the Redis server this service uses" },
];
const withNames = guarded({ resolve, protectedEndpoints: () => endpoints });
await attempt("name resolving to public + metadata", "http://rebind.test/", withNames);
await attempt("name resolving to mapped metadata", "http://mapped.test/", withNames);
await attempt("name resolving to public", "http://public.test/", withNames);
await attempt("own port on 127.0.0.1", `${local}/ok`, withNames);
await attempt("own port on ::1", `http://[::1]:${port}/ok`, withNames);
const ownOther = port === 65535 ? port - 1 : port + 1;
await attempt(
  "own port via redirect",
  `${local}/redirect?to=${encodeURIComponent(`http://localhost:${ownOther}/`)}`,
  guarded({ protectedEndpoints: () => [{ host: "0.0.0.0", port: ownOther, label: "this service's own port" }] }),
);
await attempt("postgres by name", "http://db.internal:5432/", withNames);
await attempt("postgres by address", "http://10.0.0.7:5432/", withNames);
await attempt("redis by address", "http://10.0.0.8:6379/", withNames);
await attempt("same host, another port", "http://10.0.0.7:80/", withNames);

// 4. The stored policy (server settings): private networks refused, then an allow-list entry.
const deps = await createTestDeps();
const owner = (await getUserActor(deps, (await setupOwner(deps, { email: "owner@example.com", password: "correct horse battery" })).user.id))!;
installEgressGuard(deps, { endpoints: [], allowPrivateByDefault: true });
await attempt("policy default: loopback", `${local}/ok`);
await updateEgressPolicy(deps, owner, { allowPrivateNetworks: false, allowList: [] });
await attempt("policy refuse: loopback", `${local}/ok`);
await attempt("policy refuse: private 10.1.2.3", "http://10.1.2.3/");
await attempt("policy refuse: mapped private", "http://[::ffff:10.1.2.3]/");
await updateEgressPolicy(deps, owner, { allowPrivateNetworks: false, allowList: ["127.0.0.0/8"] });
await attempt("policy refuse + allow list: loopback", `${local}/ok`);
await updateEgressPolicy(deps, owner, { allowPrivateNetworks: true, allowList: [] });

// 5. Connections: a refused base URL is a 422 on its field at save time, and verify refuses it too
//    (a row saved before the check existed, or a name that resolves differently later).
const wsRow = (await deps.store.workspaces.list(owner.organizationId ?? null))[0]!;
try {
  await createConnection(deps, owner, wsRow.id, {
    integration: "metrics",
    name: "sneaky",
    config: { metricsBaseUrl: "http://[::ffff:169.254.169.254]", apiAuth: { type: "none" } },
  });
  results.push({ name: "connection saved with mapped metadata", outcome: "ok", message: "saved" });
} catch (e) {
  const err = e as Error & { errors?: Array<{ path: string; message: string }> };
  results.push({
    name: "connection saved with mapped metadata",
    outcome: /Refusing to call/.test(err.errors?.[0]?.message ?? "") ? "refused" : "network",
    message: `${err.errors?.[0]?.path}: ${err.errors?.[0]?.message}`,
  });
}
const conn = await createConnection(deps, owner, wsRow.id, {
  integration: "metrics",
  name: "fine",
  config: { metricsBaseUrl: local, apiAuth: { type: "none" } },
});
await deps.sql(
  "update connections set config = ? where id = ?",
  JSON.stringify({ metricsBaseUrl: "http://[::ffff:169.254.169.254]", apiAuth: { type: "none" } }),
  conn.id,
);
const verified = await verifyConnection(deps, owner, wsRow.id, conn.id);
results.push({
  name: "connection verify to mapped metadata",
  outcome: verified.ok ? "ok" : /Refusing to call/.test(verified.message) ? "refused" : "network",
  message: verified.message,
});

server.close();
await deps.close();
process.stdout.write(JSON.stringify(results) + "\n");
process.exit(0);
