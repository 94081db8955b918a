import { describe, expect, it } from "vitest";
import { AppError } from "../errors";
import { formatCliError } from "./format-error";

describe("formatCliError", () => {
  it("names every field problem by the flag that set it", () => {
    const e = new AppError("validation_failed", "The API key settings are not valid.", [
      { path: "expiresAt", message: "Must be in the future" },
      { path: "role", message: "One of admin, editor, operator, viewer" },
      { path: "other.0", message: "Odd" },
    ]);
    expect(formatCliError(e)).toBe(
      [
        "conveyor: The API key settings are not valid.",
        "  --expires: Must be in the future",
        "  --role: One of admin, editor, operator, viewer",
        "  other.0: Odd",
      ].join("\n"),
    );
  });
  it("is the message alone for an error without field problems", () => {
    expect(formatCliError(new Error("boom"))).toBe("conveyor: boom");
  });
});
