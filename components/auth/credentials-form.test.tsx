// @vitest-environment jsdom
import { cleanup, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { CredentialsForm } from "./credentials-form";

afterEach(cleanup);
const noop = async () => {};

describe("CredentialsForm", () => {
  it("states a new password's rule before the first try (owner set-up, invitations), not on sign-in", () => {
    render(<CredentialsForm title="Create the owner account" submitLabel="Create account" withName onSubmit={noop} />);
    expect(screen.getByLabelText("Password").getAttribute("aria-describedby")).toBe("password-help");
    expect(document.getElementById("password-help")!.textContent).toBe("At least 8 characters.");
    cleanup();
    render(<CredentialsForm title="Sign in" submitLabel="Sign in" onSubmit={noop} />);
    expect(document.getElementById("password-help")).toBeNull();
  });

  it("shows the refusal in place of the rule once the server refused the password", () => {
    render(<CredentialsForm title="x" submitLabel="x" withName fieldErrors={{ password: "At least 8 characters" }} onSubmit={noop} />);
    expect(document.getElementById("password-help")).toBeNull();
    expect(screen.getByText("At least 8 characters")).toBeTruthy();
  });
});
