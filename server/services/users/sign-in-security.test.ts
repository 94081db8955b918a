/** Sign-in, invitations and the client address under concurrency and forged headers. */
import { Socket } from "node:net";
import { IncomingMessage } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDeps } from "../../testing";
import { setupOwner } from "./setup-owner";
import { getUserActor } from "./get-user-actor";
import { acceptInvitation, createInvitation } from "./members";
import { SIGN_IN_MAX_ATTEMPTS, signInWithPassword } from "./sign-in";
import { createClientAddressResolver, stampClientAddress, CLIENT_ADDRESS_HEADER } from "../../http/client-address";
import { isSameOrigin } from "../../http/same-origin";

let deps: Awaited<ReturnType<typeof createTestDeps>>;
let owner: NonNullable<Awaited<ReturnType<typeof getUserActor>>>;
const PASSWORD = "correct horse battery staple";

beforeAll(async () => {
  deps = await createTestDeps();
  const setup = await setupOwner(deps, { email: "owner@example.com", password: PASSWORD });
  owner = (await getUserActor(deps, setup.user.id))!;
});
afterAll(async () => deps.close());

describe("invitations", () => {
  it("is single-use even when eight accepts race", async () => {
    const inv = await createInvitation(deps, owner, { role: "admin" });
    const token = inv.url.split("/").pop()!;
    const outcomes = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) => acceptInvitation(deps, { token, email: `racer${i}@example.com`, password: PASSWORD })),
    );
    expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(1);
    for (const o of outcomes.filter((o) => o.status === "rejected")) expect(String((o as PromiseRejectedResult).reason.message)).toMatch(/already been used/);
    const [admins] = await deps.sql<{ n: number }>("select count(*) as n from memberships where role = 'admin'");
    expect(Number(admins!.n)).toBe(1);
    expect(
      (await deps.sql<{ acceptedAt: string | null }>('select accepted_at as "acceptedAt" from invitations where id = ?', inv.id))[0]!.acceptedAt,
    ).not.toBeNull();
  });

  it("a refused accept (email taken) leaves the invitation usable", async () => {
    const inv = await createInvitation(deps, owner, { role: "viewer" });
    const token = inv.url.split("/").pop()!;
    await expect(acceptInvitation(deps, { token, email: "owner@example.com", password: PASSWORD })).rejects.toThrow(/exists already/);
    await expect(acceptInvitation(deps, { token, email: "fresh@example.com", password: PASSWORD })).resolves.toMatchObject({ email: "fresh@example.com" });
  });
});

describe("sign-in limits", () => {
  it("counts before checking: 40 concurrent wrong passwords get at most 10 checks", async () => {
    const email = "owner@example.com";
    const results = await Promise.all(
      Array.from({ length: 40 }, () => signInWithPassword(deps, { email, password: "wrong password", clientAddress: "203.0.113.9" })),
    );
    const checked = results.filter((r) => !r.ok && r.reason === "invalid").length;
    expect(checked).toBe(SIGN_IN_MAX_ATTEMPTS);
    expect(results.filter((r) => !r.ok && r.reason === "rate_limited")).toHaveLength(40 - SIGN_IN_MAX_ATTEMPTS);
    // The right password is refused too until the window ends.
    expect(await signInWithPassword(deps, { email, password: PASSWORD, clientAddress: "198.51.100.1" })).toEqual({ ok: false, reason: "rate_limited" });
    const later = deps.now;
    deps.now = () => new Date(Date.now() + 16 * 60 * 1000);
    expect((await signInWithPassword(deps, { email, password: PASSWORD, clientAddress: "198.51.100.1" })).ok).toBe(true);
    deps.now = later;
  });

  it("rotating the client address does not lift the per-email limit", async () => {
    const inv = await createInvitation(deps, owner, { role: "viewer" });
    await acceptInvitation(deps, { token: inv.url.split("/").pop()!, email: "victim@example.com", password: PASSWORD });
    const outcomes = [];
    for (let i = 0; i < 15; i++)
      outcomes.push(await signInWithPassword(deps, { email: "victim@example.com", password: "guess" + i, clientAddress: `192.0.2.${i}` }));
    expect(outcomes.slice(SIGN_IN_MAX_ATTEMPTS).every((r) => !r.ok && r.reason === "rate_limited")).toBe(true);
  });

  it("limits one address across many emails", async () => {
    const outcomes = [];
    for (let i = 0; i < 12; i++)
      outcomes.push(await signInWithPassword(deps, { email: `nobody${i}@example.com`, password: "x", clientAddress: "203.0.113.50" }));
    expect(outcomes.map((r) => (r.ok ? "ok" : r.reason)).slice(-2)).toEqual(["rate_limited", "rate_limited"]);
    expect(await deps.store.users.findByEmail("nobody0@example.com")).toBeUndefined();
  });
});

function fakeRequest(peer: string, headers: Record<string, string>): IncomingMessage {
  const socket = new Socket();
  Object.defineProperty(socket, "remoteAddress", { value: peer });
  const req = new IncomingMessage(socket);
  Object.assign(req.headers, headers);
  return req;
}

describe("client address", () => {
  it("ignores X-Forwarded-For unless the peer is a trusted proxy", () => {
    const none = createClientAddressResolver([]);
    expect(none(fakeRequest("203.0.113.7", { "x-forwarded-for": "1.2.3.4" }))).toBe("203.0.113.7");
    const loopback = createClientAddressResolver(["loopback"]);
    expect(loopback(fakeRequest("127.0.0.1", { "x-forwarded-for": "198.51.100.4" }))).toBe("198.51.100.4");
    // A client-supplied chain before the proxy's entry is not believed past the first untrusted hop.
    expect(loopback(fakeRequest("127.0.0.1", { "x-forwarded-for": "6.6.6.6, 198.51.100.4" }))).toBe("198.51.100.4");
    expect(loopback(fakeRequest("203.0.113.7", { "x-forwarded-for": "198.51.100.4" }))).toBe("203.0.113.7");
  });
  it("replaces a forged x-conveyor-client-address header", () => {
    const req = fakeRequest("203.0.113.7", { [CLIENT_ADDRESS_HEADER]: "10.0.0.1" });
    stampClientAddress(req, createClientAddressResolver([]));
    expect(req.headers[CLIENT_ADDRESS_HEADER]).toBe("203.0.113.7");
  });
});

describe("CSRF origin check", () => {
  const post = (headers: Record<string, string>) => new Request("http://conveyor.internal:3000/api/trpc/x", { method: "POST", headers });
  it("compares with the public URL, not X-Forwarded-Host", () => {
    const pub = "https://conveyor.example.com";
    expect(isSameOrigin(post({ origin: "https://evil.example", "x-forwarded-host": "evil.example", host: "conveyor.internal:3000" }), pub)).toBe(false);
    expect(isSameOrigin(post({ origin: "https://conveyor.example.com", host: "conveyor.internal:3000" }), pub)).toBe(true);
    expect(isSameOrigin(post({ origin: "http://conveyor.internal:3000", host: "conveyor.internal:3000" }), pub)).toBe(true);
    expect(isSameOrigin(post({ origin: "null", host: "conveyor.internal:3000" }), pub)).toBe(false);
  });
});
