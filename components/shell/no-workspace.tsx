"use client";
import { useMutation, useQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import type { FormEvent } from "react";
import { useTRPC } from "@/components/providers/trpc-provider";

/** Shown when the signed-in member sees no workspace yet. */
export function NoWorkspace() {
  const trpc = useTRPC();
  const router = useRouter();
  const me = useQuery(trpc.me.get.queryOptions());
  const create = useMutation(trpc.workspaces.create.mutationOptions());
  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const ws = await create.mutateAsync({ name: String(new FormData(e.currentTarget).get("name") ?? "") });
    router.push(`/w/${ws.id}/automations`);
  }
  return (
    <main className="flex min-h-screen items-center justify-center p-6">
      <div className="card w-full max-w-sm space-y-3 p-6">
        <h1>No workspace yet</h1>
        {me.data?.can.createWorkspace ? (
          <form onSubmit={submit} className="space-y-3">
            <label className="label" htmlFor="ws-name">
              Workspace name
            </label>
            <input id="ws-name" name="name" className="input" required />
            {create.error && <p className="field-error">{create.error.message}</p>}
            <button className="btn btn-primary w-full">Create workspace</button>
          </form>
        ) : (
          <p className="text-sm text-muted">Ask an admin to create a workspace.</p>
        )}
      </div>
    </main>
  );
}
