"use client";
import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { Check, ChevronsUpDown, Plus } from "lucide-react";
import { useTRPC } from "@/components/providers/trpc-provider";

export function WorkspaceSwitcher(props: { current: { id: string; name: string }; workspaces: Array<{ id: string; name: string }>; canCreate: boolean }) {
  const trpc = useTRPC();
  const router = useRouter();
  const [open, setOpen] = useState(false);
  const [creating, setCreating] = useState(false);
  const create = useMutation(trpc.workspaces.create.mutationOptions());
  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const name = String(new FormData(e.currentTarget).get("name") ?? "");
    const ws = await create.mutateAsync({ name });
    setOpen(false);
    setCreating(false);
    router.push(`/w/${ws.id}/automations`);
    router.refresh();
  }
  return (
    <div className="relative">
      <button
        className="btn w-full justify-between"
        aria-haspopup="listbox"
        aria-expanded={open}
        data-testid="workspace-switcher"
        onClick={() => setOpen((o) => !o)}
      >
        <span className="truncate">{props.current.name}</span>
        <ChevronsUpDown size={14} aria-hidden />
      </button>
      {open && (
        <div className="card absolute z-30 mt-1 w-full p-1" role="listbox" aria-label="Workspaces">
          {props.workspaces.map((w) => (
            <button
              key={w.id}
              role="option"
              aria-selected={w.id === props.current.id}
              className="flex w-full items-center justify-between rounded px-2 py-1.5 text-left text-sm hover:bg-zinc-100"
              onClick={() => {
                setOpen(false);
                router.push(`/w/${w.id}/automations`);
              }}
            >
              <span className="truncate">{w.name}</span>
              {w.id === props.current.id && <Check size={14} aria-hidden />}
            </button>
          ))}
          {props.canCreate &&
            (creating ? (
              <form onSubmit={submit} className="space-y-1 border-t border-border p-1 pt-2">
                <label className="label" htmlFor="new-workspace-name">
                  Workspace name
                </label>
                <input id="new-workspace-name" name="name" className="input" autoFocus required maxLength={100} />
                {create.error && <p className="field-error">{create.error.message}</p>}
                <button className="btn btn-primary btn-sm w-full" disabled={create.isPending}>
                  Create workspace
                </button>
              </form>
            ) : (
              <button
                className="mt-1 flex w-full items-center gap-1.5 rounded border-t border-border px-2 py-1.5 text-sm text-accent hover:bg-zinc-100"
                onClick={() => setCreating(true)}
              >
                <Plus size={14} aria-hidden /> New workspace
              </button>
            ))}
        </div>
      )}
    </div>
  );
}
