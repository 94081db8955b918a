/** Address classification and the guard's decisions (no sockets: names resolve through a fake resolver). */
import { describe, expect, it } from "vitest";
import { classifyAddress, createEgressGuard, isValidAllowEntry } from "./egress";

describe("classifyAddress", () => {
  it.each([
    ["169.254.169.254", "blocked", "metadata", "169.254.169.254"],
    ["::ffff:169.254.169.254", "blocked", "metadata", "169.254.169.254"],
    ["0:0:0:0:0:ffff:a9fe:a9fe", "blocked", "metadata", "169.254.169.254"],
    ["::169.254.169.254", "blocked", "metadata", "169.254.169.254"],
    ["64:ff9b::a9fe:a9fe", "blocked", "metadata", "169.254.169.254"],
    ["64:ff9b:1::a9fe:a9fe", "blocked", "metadata", "169.254.169.254"],
    ["2002:a9fe:a9fe::1", "blocked", "metadata", "169.254.169.254"],
    ["168.63.129.16", "blocked", "metadata", "168.63.129.16"],
    ["fd00:ec2::254", "blocked", "metadata", "fd00:ec2::254"],
    ["169.254.10.1", "blocked", "linkLocal", "169.254.10.1"],
    ["febf::1", "blocked", "linkLocal", "febf::1"],
    ["fe80::1%eth0", "blocked", "linkLocal", "fe80::1"],
    ["224.0.0.1", "blocked", "multicast", "224.0.0.1"],
    ["0.0.0.0", "blocked", "unspecified", "0.0.0.0"],
    ["::", "blocked", "unspecified", "::"],
    ["2001::1", "blocked", "teredo", "2001::1"],
    ["127.0.0.1", "private", "loopback", "127.0.0.1"],
    ["::1", "private", "loopback", "::1"],
    ["::ffff:127.0.0.1", "private", "loopback", "127.0.0.1"],
    ["10.0.0.1", "private", "private", "10.0.0.1"],
    ["192.168.1.10", "private", "private", "192.168.1.10"],
    ["100.64.0.1", "private", "carrierGradeNat", "100.64.0.1"],
    ["fd12:3456::1", "private", "uniqueLocal", "fd12:3456::1"],
    ["8.8.8.8", "public", "unicast", "8.8.8.8"],
    ["2606:4700::1111", "public", "unicast", "2606:4700::1111"],
    ["64:ff9b::808:808", "public", "unicast", "8.8.8.8"],
  ])("%s is %s (%s)", (ip, cls, range, address) => {
    expect(classifyAddress(ip)).toMatchObject({ class: cls, range, address });
  });
  it("treats anything unparsable as blocked", () => {
    expect(classifyAddress("not-an-ip").class).toBe("blocked");
  });
});

describe("egress guard", () => {
  const resolve = async (host: string) => ({ "both.test": ["8.8.8.8", "10.0.0.1"], "pub.test": ["8.8.4.4"] })[host] ?? [];
  it("allows private networks by default and refuses them under the strict policy, except the allow list", async () => {
    const open = createEgressGuard({ resolve });
    await expect(open.check("both.test", 80)).resolves.toEqual(["8.8.8.8", "10.0.0.1"]);
    const strict = createEgressGuard({ resolve, policy: () => ({ allowPrivateNetworks: false, allowList: ["10.0.0.0/30"] }) });
    await expect(strict.check("both.test", 80)).resolves.toHaveLength(2);
    const stricter = createEgressGuard({ resolve, policy: () => ({ allowPrivateNetworks: false, allowList: [] }) });
    await expect(stricter.check("both.test", 80)).rejects.toThrow(
      /both\.test resolves to 10\.0\.0\.1\): a private-network address, and the egress policy refuses/,
    );
    await expect(stricter.check("pub.test", 443)).resolves.toEqual(["8.8.4.4"]);
  });
  it("an allow list never opens metadata or link-local", async () => {
    const g = createEgressGuard({ policy: () => ({ allowPrivateNetworks: false, allowList: ["169.254.0.0/16", "::/0"] }) });
    await expect(g.check("169.254.169.254", 80)).rejects.toThrow(/always blocked/);
    await expect(g.check("[fe80::1]", 80)).rejects.toThrow(/always blocked/);
  });
  it("validates allow-list entries", () => {
    expect(isValidAllowEntry("10.0.0.0/8")).toBe(true);
    expect(isValidAllowEntry("fd00::/8")).toBe(true);
    expect(isValidAllowEntry("10.0.0.300")).toBe(false);
    expect(isValidAllowEntry("example.com")).toBe(false);
  });
});
