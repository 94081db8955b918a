/**
 * The egress guard end to end, inside a loopback-only network namespace (`unshare -n`): the probe
 * (testing/egress-probe.ts) tries every hostile destination through the real HTTP client, the stored
 * policy and a connection verify; no packet can leave the machine. Assertions are about the
 * guard's refusal message, never about a network error (a public address is the one case that must
 * reach the network layer, and fail there with ENETUNREACH).
 */
import { execFileSync, spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");
function netnsAvailable(): boolean {
  try {
    execFileSync("unshare", ["-n", "sh", "-c", "ip link set lo up"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}
const available = netnsAvailable();

type Outcome = { name: string; outcome: "ok" | "refused" | "network"; message: string };
let results: Outcome[] | null = null;
function probe(): Map<string, Outcome> {
  if (!results) {
    const r = spawnSync(
      "unshare",
      ["-n", "sh", "-c", `ip link set lo up && exec "${process.execPath}" --import tsx integrations/core/testing/egress-probe.ts`],
      {
        cwd: ROOT,
        encoding: "utf8",
        timeout: 90_000,
        // Storage on a SQLite file: the namespace has only its own loopback, so a PostgreSQL server under test is out of reach.
        env: { ...process.env, LOG_LEVEL: "silent", CONVEYOR_TEST_PG_URL: "" },
      },
    );
    const last = r.stdout.trim().split("\n").pop() ?? "";
    if (r.status !== 0 || !last.startsWith("[")) throw new Error(`probe failed (${r.status}): ${r.stderr.slice(-2000)}`);
    results = JSON.parse(last) as Outcome[];
  }
  return new Map(results.map((x) => [x.name, x]));
}

describe.skipIf(!available)("egress guard in a loopback-only namespace", () => {
  const refusedAlways = [
    "ipv4-mapped metadata",
    "ipv4-mapped metadata, long form",
    "ipv4-compatible metadata",
    "nat64 metadata",
    "6to4 metadata",
    "azure wireserver",
    "aws ipv6 metadata",
    "metadata, decimal ipv4",
    "metadata, hex ipv4",
    "metadata, octal ipv4",
    "metadata, short ipv4",
    "metadata, mixed-radix ipv4",
    "alibaba metadata",
  ];
  it("refuses every spelling of a cloud metadata address, naming the IPv4 address it carries", { timeout: 120_000 }, () => {
    const r = probe();
    for (const name of refusedAlways) {
      expect(r.get(name), name).toMatchObject({
        outcome: "refused",
        message: expect.stringMatching(/Refusing to call .*cloud metadata endpoint is always blocked/),
      });
    }
    expect(r.get("ipv4-mapped metadata")!.message).toContain("that is 169.254.169.254");
    expect(r.get("nat64 metadata")!.message).toContain("that is 169.254.169.254");
    expect(r.get("gcp metadata name")!.message).toMatch(/metadata\.google\.internal:80: it is a cloud metadata endpoint/);
    expect(r.get("gcp metadata name, trailing dot and capitals")!.message).toMatch(/metadata\.google\.internal:80: it is a cloud metadata endpoint/);
  });
  it("refuses link-local and unspecified addresses", { timeout: 120_000 }, () => {
    const r = probe();
    expect(r.get("ipv6 link-local febf::1")!.message).toMatch(/\[febf::1\]:80: a link-local address is always blocked/);
    expect(r.get("ipv6 link-local fe80::1")!.outcome).toBe("refused");
    expect(r.get("unspecified")!.message).toMatch(/the unspecified address is always blocked/);
  });
  it("checks every redirect hop", { timeout: 120_000 }, () => {
    const r = probe();
    expect(r.get("redirect to metadata")!.message).toMatch(/Refusing to call 169\.254\.169\.254:80/);
    expect(r.get("redirect to mapped metadata")!.message).toMatch(/that is 169\.254\.169\.254/);
    expect(r.get("redirect to loopback")).toMatchObject({ outcome: "ok", message: "200" });
    expect(r.get("own port via redirect")!.message).toMatch(/this service's own port/);
  });
  it("checks every address a name resolves to, and lets public addresses through to the network", { timeout: 120_000 }, () => {
    const r = probe();
    expect(r.get("name resolving to public + metadata")!.message).toMatch(/rebind\.test resolves to 169\.254\.169\.254/);
    expect(r.get("name resolving to mapped metadata")!.outcome).toBe("refused");
    // Allowed by the guard, so the connect itself is tried and fails inside the namespace.
    expect(r.get("name resolving to public")).toMatchObject({ outcome: "network", message: expect.stringContaining("ENETUNREACH") });
  });
  it("never reaches the service's own port, PostgreSQL or Redis", { timeout: 120_000 }, () => {
    const r = probe();
    expect(r.get("own port on 127.0.0.1")!.message).toMatch(/this service's own port/);
    expect(r.get("own port on ::1")!.message).toMatch(/this service's own port/);
    expect(r.get("postgres by name")!.message).toMatch(/db\.internal resolves to 10\.0\.0\.7\): it is the PostgreSQL server/);
    expect(r.get("postgres by address")!.message).toMatch(/the PostgreSQL server this service uses/);
    expect(r.get("redis by address")!.message).toMatch(/the Redis server this service uses/);
    expect(r.get("same host, another port")!.outcome).toBe("network");
  });
  it("applies the stored admin policy: private networks allowed by default, refusable, with an allow list", { timeout: 120_000 }, () => {
    const r = probe();
    expect(r.get("policy default: loopback")!.outcome).toBe("ok");
    expect(r.get("policy refuse: loopback")!.message).toMatch(/a loopback address, and the egress policy refuses private networks/);
    expect(r.get("policy refuse: private 10.1.2.3")!.message).toMatch(/a private-network address, and the egress policy refuses/);
    expect(r.get("policy refuse: mapped private")!.message).toMatch(/that is 10\.1\.2\.3/);
    expect(r.get("policy refuse + allow list: loopback")!.outcome).toBe("ok");
  });
  it("refuses a connection whose base URL is a metadata address: 422 on the field at save, the reason in its status on verify", { timeout: 120_000 }, () => {
    const r = probe();
    expect(r.get("connection saved with mapped metadata")).toMatchObject({
      outcome: "refused",
      message: expect.stringMatching(/^config\.metricsBaseUrl: Refusing to call .*cloud metadata endpoint/),
    });
    expect(r.get("connection verify to mapped metadata")).toMatchObject({ outcome: "refused", message: expect.stringContaining("cloud metadata endpoint") });
  });
});
