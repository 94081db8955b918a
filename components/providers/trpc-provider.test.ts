/** Queries are retried once after a server or network failure, never after a client error. */
import { TRPCClientError } from "@trpc/client";
import { describe, expect, it } from "vitest";
import { retryQuery } from "./trpc-provider";

const clientError = (httpStatus: number) => Object.assign(new TRPCClientError("x"), { data: { httpStatus } });

describe("retryQuery", () => {
  it("does not ask again after a 404 or 403: the answer would be the same", () => {
    expect(retryQuery(0, clientError(404))).toBe(false);
    expect(retryQuery(0, clientError(403))).toBe(false);
  });
  it("retries a 5xx or a network failure once", () => {
    expect(retryQuery(0, clientError(503))).toBe(true);
    expect(retryQuery(1, clientError(503))).toBe(false);
    expect(retryQuery(0, new TypeError("Failed to fetch"))).toBe(true);
    expect(retryQuery(1, new TypeError("Failed to fetch"))).toBe(false);
  });
});
