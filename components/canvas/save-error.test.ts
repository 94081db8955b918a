/** What a failed save says in the editor, from the tRPC client's errors (as the client builds them). */
import { TRPCClientError } from "@trpc/client";
import { describe, expect, it } from "vitest";
import { saveFailure } from "./save-error";

const fromServer = (message: string, httpStatus: number, code: string) =>
  TRPCClientError.from({ error: { message, code: -32600, data: { httpStatus, code } } } as never);

describe("saveFailure", () => {
  it("someone saved in between: a conflict naming the version now saved", () => {
    const f = saveFailure(fromServer("The automation is at version 4, not 3; reload it and apply your change again.", 412, "PRECONDITION_FAILED"));
    expect(f.kind).toBe("conflict");
    expect(f.message).toContain("someone else saved this automation (now version 4)");
    expect(f.message).toContain("Your changes are still here");
  });

  it("the session ended: says so and that the changes are kept", () => {
    const f = saveFailure(fromServer("Sign in first.", 401, "UNAUTHORIZED"));
    expect(f).toMatchObject({ kind: "signed-out" });
    expect(f.message).toMatch(/^Not saved: you were signed out\. Your changes are kept in this browser/);
  });

  it("no answer (connection refused, or a proxy's page while the server restarts): unreachable", () => {
    expect(saveFailure(TRPCClientError.from(new TypeError("Failed to fetch"))).kind).toBe("unreachable");
    expect(saveFailure(TRPCClientError.from(new SyntaxError("Unexpected token '<'"))).message).toBe(
      "Not saved: the server could not be reached. Your changes are kept in this browser; save again when it is back.",
    );
  });

  it("any other refusal keeps the server's own message", () => {
    expect(saveFailure(fromServer("Name is too long.", 400, "BAD_REQUEST"))).toEqual({ kind: "refused", message: "Not saved: Name is too long." });
  });
});
