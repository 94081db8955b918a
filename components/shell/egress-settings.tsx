"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { toast } from "sonner";
import { useTRPC } from "@/components/providers/trpc-provider";

/** Settings → Outbound network: the egress policy (admins only). */
export function EgressSettings() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const policy = useQuery(trpc.settings.egress.queryOptions());
  const save = useMutation(trpc.settings.updateEgress.mutationOptions());
  const [problems, setProblems] = useState<Array<{ path: string; message: string }>>([]);

  async function onSave(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const allowList = String(f.get("allowList") ?? "")
      .split(/[\s,]+/)
      .map((s) => s.trim())
      .filter(Boolean);
    try {
      await save.mutateAsync({ allowPrivateNetworks: f.get("allowPrivateNetworks") === "on", allowList });
      setProblems([]);
      await qc.invalidateQueries({ queryKey: trpc.settings.egress.queryKey() });
      toast.success("Egress policy saved");
    } catch (err) {
      const data = (err as { data?: { problems?: Array<{ path: string; message: string }> } }).data;
      setProblems(data?.problems ?? [{ path: "", message: (err as Error).message }]);
    }
  }

  if (!policy.data) return null;
  const p = policy.data;
  return (
    <section className="card space-y-3 p-5" aria-labelledby="egress-heading">
      <h2 id="egress-heading">Outbound network</h2>
      <p className="help">Which addresses automations, connection checks and sign-in flows may call. Every address is checked after DNS, on every redirect.</p>
      <form onSubmit={onSave} className="space-y-3" key={`${p.updatedAt}`}>
        <label className="flex items-center gap-2">
          <input type="checkbox" name="allowPrivateNetworks" defaultChecked={p.allowPrivateNetworks} />
          Allow loopback and private networks (10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7)
        </label>
        <div>
          <label className="label" htmlFor="egress-allow">
            Always allowed when private networks are refused (addresses or CIDRs)
          </label>
          <textarea
            id="egress-allow"
            name="allowList"
            className="input h-20 w-full max-w-md font-mono"
            defaultValue={p.allowList.join("\n")}
            placeholder="10.0.5.0/24"
          />
          {problems.map((x) => (
            <p key={x.path + x.message} className="field-error">
              {x.path ? `${x.path}: ` : ""}
              {x.message}
            </p>
          ))}
        </div>
        <div className="text-sm text-muted">
          Always refused, whatever this says:
          <ul className="ml-5 list-disc">
            {p.alwaysRefused.map((r) => (
              <li key={r}>{r}</li>
            ))}
          </ul>
        </div>
        <div className="flex items-center gap-3">
          <button className="btn btn-primary" disabled={save.isPending}>
            Save policy
          </button>
          <span className="text-xs text-muted">
            {p.source === "default"
              ? "Default (CONVEYOR_EGRESS_PRIVATE_NETWORKS); not saved yet."
              : `Saved by ${p.updatedBy} at ${new Date(p.updatedAt!).toLocaleString()}`}
          </span>
        </div>
      </form>
    </section>
  );
}
