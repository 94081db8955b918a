"use client";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { createTRPCClient, httpBatchLink } from "@trpc/client";
import { createTRPCContext } from "@trpc/tanstack-react-query";
import { SessionProvider } from "next-auth/react";
import { useState, type ReactNode } from "react";
import type { AppRouter } from "@/server/trpc/root";
import { databaseRetryInterval } from "@/components/errors/database-unavailable";

export const { TRPCProvider, useTRPC, useTRPCClient } = createTRPCContext<AppRouter>();

/**
 * A failed query is tried once more, unless the server answered a client error (a missing run, a
 * refused role): asking again gets the same answer, and the page would show it a round trip later.
 */
export function retryQuery(failureCount: number, error: unknown): boolean {
  const status = (error as { data?: { httpStatus?: unknown } } | null)?.data?.httpStatus;
  if (typeof status === "number" && status >= 400 && status < 500) return false;
  return failureCount < 1;
}

function makeQueryClient() {
  // A query the database could not answer is asked again every few seconds (queries with their own interval keep theirs).
  return new QueryClient({ defaultOptions: { queries: { staleTime: 5_000, retry: retryQuery, refetchInterval: databaseRetryInterval } } });
}

/** Providers for every client page: next-auth session, TanStack Query, tRPC. */
export function TRPCReactProvider({ children }: { children: ReactNode }) {
  const [queryClient] = useState(makeQueryClient);
  const [trpcClient] = useState(() => createTRPCClient<AppRouter>({ links: [httpBatchLink({ url: "/api/trpc" })] }));
  return (
    <SessionProvider>
      <QueryClientProvider client={queryClient}>
        <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
          {children}
        </TRPCProvider>
      </QueryClientProvider>
    </SessionProvider>
  );
}
