// @vitest-environment jsdom
/**
 * The usage totals: sub-second working time reads in ms (it read "0 s"), and the runs retried are apart
 * from the time waited between attempts (one card read "Retries / waited: 0 / 11 s" after a step had
 * been retried four times automatically).
 */
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { cleanup, render, screen } from "@testing-library/react";
import { afterEach, expect, it, vi } from "vitest";
import { UsagePage } from "./usage-page";

const totals = {
  runs: { failed: 1 },
  steps: { failed: 1 },
  runTimeMs: 20,
  retries: 0,
  retryWaitMs: 11_500,
  testRuns: {},
  eventsReceived: 1,
  tasksCreated: 0,
  tasksClosed: 0,
  apiCalls: 0,
};
vi.mock("@/components/providers/trpc-provider", () => ({
  useTRPC: () => ({ usage: { get: { queryOptions: () => ({ queryKey: ["usage"], queryFn: async () => ({ totals, buckets: [] }) }) } } }),
}));
globalThis.ResizeObserver ??= class {
  observe() {}
  unobserve() {}
  disconnect() {}
} as unknown as typeof ResizeObserver;

afterEach(cleanup);

it("shows working time in ms and the runs retried apart from the wait between attempts", async () => {
  render(
    <QueryClientProvider client={new QueryClient()}>
      <UsagePage workspaceId="ws_1" />
    </QueryClientProvider>,
  );
  await screen.findByText("11.5 s");
  const card = async (label: string) => (await screen.findByText(label)).nextElementSibling?.textContent;
  expect(await card("Run time (working)")).toBe("20 ms");
  expect(await card("Runs retried")).toBe("0");
  expect(await card("Waited between automatic retries")).toBe("11.5 s");
});
