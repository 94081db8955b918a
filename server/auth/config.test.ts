/**
 * next-auth builds its URLs from the configured public URL (never http://localhost:3000 or a
 * forwarded host), marks cookies Secure when that URL is https, and logs JSON lines.
 */
import { beforeAll, describe, expect, it, vi } from "vitest";

type Captured = { status: number; headers: Record<string, unknown>; body: unknown };
let NextAuth: (req: unknown, res: unknown, options: unknown) => Promise<unknown>;
let authOptions: typeof import("./config").authOptions;
const lines: string[] = [];

beforeAll(async () => {
  vi.stubEnv("CONVEYOR_PUBLIC_URL", "https://conveyor.example.com");
  vi.stubEnv("NEXTAUTH_URL", undefined);
  vi.stubEnv("NEXTAUTH_SECRET", "test-secret-test-secret-test-secret");
  vi.stubEnv("LOG_LEVEL", "debug");
  vi.resetModules();
  vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  });
  NextAuth = (await import("next-auth")).default as never;
  ({ authOptions } = await import("./config"));
});

/** Calls next-auth's pages-style handler (the same core as the route handler) with a forged forwarded host. */
async function request(action: string[], method = "GET", body: Record<string, unknown> = {}, cookies: Record<string, string> = {}): Promise<Captured> {
  const out: Captured = { status: 200, headers: {}, body: undefined };
  const res = {
    status(code: number) {
      out.status = code;
      return res;
    },
    setHeader(k: string, v: unknown) {
      const prev = out.headers[k.toLowerCase()];
      out.headers[k.toLowerCase()] = prev && k.toLowerCase() === "set-cookie" ? [prev, v].flat() : v;
    },
    getHeader: (k: string) => out.headers[k.toLowerCase()],
    send(b: unknown) {
      out.body = b;
    },
    json(b: unknown) {
      out.body = b;
    },
    end() {},
  };
  const req = {
    query: { nextauth: action },
    method,
    headers: { host: "evil.example", "x-forwarded-host": "evil.example", "x-forwarded-proto": "http" },
    cookies,
    body,
  };
  await NextAuth(req, res, authOptions);
  return out;
}

describe("next-auth configuration", () => {
  it("points sign-in and callback URLs at the public URL", async () => {
    const res = await request(["providers"]);
    const creds = (res.body as Record<string, { signinUrl: string; callbackUrl: string }>).credentials!;
    expect(creds.signinUrl).toBe("https://conveyor.example.com/api/auth/signin/credentials");
    expect(creds.callbackUrl).toBe("https://conveyor.example.com/api/auth/callback/credentials");
  });

  it("sets __Host-/__Secure- cookies with Secure when the public URL is https", async () => {
    const res = await request(["csrf"]);
    const cookies = [res.headers["set-cookie"]].flat().map(String);
    const csrf = cookies.find((c) => c.includes("csrf-token"));
    expect(csrf).toMatch(/^__Host-next-auth\.csrf-token=/);
    expect(csrf).toMatch(/; Secure/i);
    expect(authOptions.useSecureCookies).toBe(true);
  });

  it("writes its messages as JSON lines without secrets", async () => {
    await request(["callback", "credentials"], "POST", { email: "x@example.com", password: "hunter2-secret", csrfToken: "bogus" });
    // A forged session cookie makes next-auth log JWT_SESSION_ERROR.
    await request(["session"], "GET", {}, { "__Secure-next-auth.session-token": "forged.session.token-hunter2-secret" });
    const auth = lines.flatMap((l) => l.split("\n")).filter((l) => l.includes("auth:"));
    expect(auth.length).toBeGreaterThan(0);
    for (const l of auth) {
      expect(() => JSON.parse(l)).not.toThrow();
      expect(l).not.toContain("hunter2-secret");
      expect(l).not.toContain("test-secret-test-secret");
    }
  });
});
