import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { checkTaskIntakeAuth } from "@/server/services/webhooks/task-intake-auth";
import { signingSnippet } from "./signing-snippet";

describe("the intakes page's how-to-sign snippet", () => {
  it("run by bash with the secret filled in, sends a timestamped signature an intake requiring one accepts", () => {
    const url = "http://localhost:3000/hooks/tok";
    const text = signingSnippet(url);
    expect(text).not.toContain("s3cret");
    // curl replaced by a function printing its arguments: the header and body it would send.
    const script = `curl() { printf '%s\\n' "$@"; }\n${text.replace("<the secret above>", "s3cret-of-the-intake")}`;
    const args = execFileSync("bash", ["-c", script], { encoding: "utf8" }).split("\n");
    const header = args.find((a) => a.startsWith("X-Conveyor-Signature: "))!.slice("X-Conveyor-Signature: ".length);
    const body = args[args.indexOf("--data") + 1]!;
    expect(args).toContain(url);
    const delivery = { method: "POST", headers: { "x-conveyor-signature": header }, query: {}, rawBody: Buffer.from(body), body: JSON.parse(body) };
    const verdict = checkTaskIntakeAuth(delivery, "s3cret-of-the-intake", { requireTimestampedSignature: true }, Date.now(), 300);
    expect(verdict).toMatchObject({ ok: true, replay: { signature: expect.stringMatching(/^[0-9a-f]{64}$/) } });
    expect(checkTaskIntakeAuth(delivery, "another-secret", { requireTimestampedSignature: true }, Date.now(), 300)).toMatchObject({ ok: false });
  });
});
