// @vitest-environment jsdom
/**
 * `/sign-in?callbackUrl=https://evil.example` sent the browser there after a successful sign-in (a
 * phishing page could then ask for the password "again"). The form now goes back to a path on this
 * site only.
 */
import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, beforeEach, expect, it, vi } from "vitest";
import { SignInForm } from "./sign-in-form";

const replace = vi.fn();
let search = "";
vi.mock("next/navigation", () => ({
  useRouter: () => ({ replace, refresh: () => {} }),
  useSearchParams: () => new URLSearchParams(search),
}));
vi.mock("next-auth/react", () => ({ signIn: async () => ({ ok: true, error: null, status: 200, url: null }) }));

beforeEach(() => replace.mockClear());
afterEach(cleanup);

async function signInWith(callbackUrl: string | null) {
  search = callbackUrl === null ? "" : `callbackUrl=${encodeURIComponent(callbackUrl)}`;
  render(<SignInForm oidcName={null} />);
  fireEvent.change(screen.getByLabelText("Email"), { target: { value: "a@example.com" } });
  fireEvent.change(screen.getByLabelText("Password"), { target: { value: "correct horse" } });
  fireEvent.click(screen.getByRole("button", { name: "Sign in" }));
  await waitFor(() => expect(replace).toHaveBeenCalledTimes(1));
  cleanup();
  const [target] = replace.mock.calls[0]!;
  replace.mockClear();
  return target as string;
}

it("after signing in, goes back to the page on this site it came from", async () => {
  expect(await signInWith("/w/ws_1/automations/aut_2?node=n1")).toBe("/w/ws_1/automations/aut_2?node=n1");
  expect(await signInWith(null)).toBe("/");
});

it("never to another origin, however the callback URL is spelled", async () => {
  for (const hostile of ["https://evil.example/sign-in", "//evil.example", "/\\evil.example", "/\t/evil.example", "javascript:alert(1)"])
    expect(await signInWith(hostile), hostile).toBe("/");
});
