// @vitest-environment jsdom
/**
 * Settings › Members listed no invitations after "Create invitation link": a leaked link could not be
 * found or killed. The pending list shows who, role, creator and expiry, and Revoke asks first.
 */
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, beforeEach, expect, it, vi } from "vitest";
import { PendingInvitations } from "./pending-invitations";

let pending: Array<{ id: string; email: string | null; role: string; createdBy: string; createdAt: string; expiresAt: string }>;
const revoked: string[] = [];

vi.mock("@/components/providers/trpc-provider", () => ({
  useTRPC: () => ({
    members: {
      invitations: {
        queryOptions: () => ({ queryKey: ["invitations"], queryFn: async () => pending }),
        queryKey: () => ["invitations"],
      },
      revokeInvite: {
        mutationOptions: () => ({
          mutationFn: async ({ invitationId }: { invitationId: string }) => {
            revoked.push(invitationId);
            pending = pending.filter((p) => p.id !== invitationId);
          },
        }),
      },
    },
  }),
}));
vi.mock("sonner", () => ({ toast: { success: vi.fn(), error: vi.fn() } }));

beforeEach(() => {
  revoked.length = 0;
  pending = [
    {
      id: "inv_1",
      email: "leaked@example.com",
      role: "admin",
      createdBy: "user:owner@example.com",
      createdAt: "2026-11-20T10:00:00.000Z",
      expiresAt: "2026-11-27T10:00:00.000Z",
    },
    {
      id: "inv_2",
      email: null,
      role: "viewer",
      createdBy: "user:owner@example.com",
      createdAt: "2026-11-21T10:00:00.000Z",
      expiresAt: "2026-11-28T10:00:00.000Z",
    },
  ];
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const renderList = () =>
  render(
    <QueryClientProvider client={new QueryClient()}>
      <PendingInvitations />
    </QueryClientProvider>,
  );

it("lists pending invitations with who, role, creator and expiry, and says links are not shown again", async () => {
  renderList();
  const row = (await screen.findByText("leaked@example.com")).closest("tr")!;
  expect(within(row).getByText("admin")).toBeTruthy();
  expect(within(row).getByText("owner@example.com")).toBeTruthy();
  expect(within(row).getByText(new Date("2026-11-27T10:00:00.000Z").toLocaleString())).toBeTruthy();
  expect(screen.getByText("Anyone with the link")).toBeTruthy();
  expect(screen.getByText(/stored hashed, so it cannot be copied again/)).toBeTruthy();
});

it("revokes only after confirmation, then drops the row", async () => {
  const confirm = vi.fn(() => false);
  vi.stubGlobal("confirm", confirm);
  renderList();
  fireEvent.click(await screen.findByRole("button", { name: "Revoke invitation for leaked@example.com" }));
  expect(confirm).toHaveBeenCalledWith(expect.stringMatching(/Revoke the admin invitation for leaked@example.com\?/));
  expect(revoked).toEqual([]);

  confirm.mockReturnValue(true);
  fireEvent.click(screen.getByRole("button", { name: "Revoke invitation for leaked@example.com" }));
  await waitFor(() => expect(screen.queryByText("leaked@example.com")).toBeNull());
  expect(revoked).toEqual(["inv_1"]);
  expect(screen.getByText("Anyone with the link")).toBeTruthy();
});

it("says so when nothing is pending", async () => {
  pending = [];
  renderList();
  expect(await screen.findByText("No pending invitations.")).toBeTruthy();
});
