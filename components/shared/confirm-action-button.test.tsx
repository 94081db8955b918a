// @vitest-environment jsdom
/**
 * The settings lists' Revoke/Delete: nothing happens when the confirm is dismissed; once confirmed the
 * action runs once even on a double click (API keys and intakes used to send it twice), the page's own
 * success and failure words are toasted, and the list is refreshed either way.
 */
import { act, cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, expect, it, vi } from "vitest";
import { toast } from "sonner";
import { ConfirmActionButton } from "./confirm-action-button";

vi.mock("sonner", () => ({ toast: { success: vi.fn(), error: vi.fn() } }));
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  vi.mocked(toast.success).mockClear();
  vi.mocked(toast.error).mockClear();
});

it("asks first and does nothing when the confirm is dismissed", () => {
  const confirm = vi.fn(() => false);
  vi.stubGlobal("confirm", confirm);
  const action = vi.fn(async () => {});
  render(
    <ConfirmActionButton confirm="Revoke “deploy”?" action={action}>
      Revoke
    </ConfirmActionButton>,
  );
  fireEvent.click(screen.getByRole("button", { name: "Revoke" }));
  expect(confirm).toHaveBeenCalledWith("Revoke “deploy”?");
  expect(action).not.toHaveBeenCalled();
});

it("runs the action once on a double click, toasts the page's success and refreshes", async () => {
  vi.stubGlobal("confirm", () => true);
  let finish!: () => void;
  const action = vi.fn(() => new Promise<void>((r) => (finish = r)));
  const onSettled = vi.fn();
  render(
    <ConfirmActionButton confirm="Sure?" action={action} onSettled={onSettled} success="Invitation revoked" label="Revoke invitation for a@b.c">
      Revoke
    </ConfirmActionButton>,
  );
  const button = screen.getByRole("button", { name: "Revoke invitation for a@b.c" });
  fireEvent.click(button);
  fireEvent.click(button);
  expect(action).toHaveBeenCalledTimes(1);
  expect((button as HTMLButtonElement).disabled).toBe(true);
  await act(async () => finish());
  await waitFor(() => expect((button as HTMLButtonElement).disabled).toBe(false));
  expect(toast.success).toHaveBeenCalledWith("Invitation revoked");
  expect(onSettled).toHaveBeenCalledTimes(1);
});

it("toasts the failure in the page's words and still refreshes", async () => {
  vi.stubGlobal("confirm", () => true);
  const onSettled = vi.fn();
  render(
    <ConfirmActionButton
      confirm="Sure?"
      action={async () => Promise.reject(new Error("key not found"))}
      onSettled={onSettled}
      failure={(m) => `Not revoked: ${m}`}
    >
      Revoke
    </ConfirmActionButton>,
  );
  fireEvent.click(screen.getByRole("button", { name: "Revoke" }));
  await waitFor(() => expect(toast.error).toHaveBeenCalledWith("Not revoked: key not found"));
  expect(toast.success).not.toHaveBeenCalled();
  expect(onSettled).toHaveBeenCalledTimes(1);
});
