"use client";
/** Connections of a workspace: add (form or OAuth), test, edit settings, reconnect, choose a site, delete. */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Cable, ExternalLink, Globe, PlugZap, Plus, Settings2, Trash2 } from "lucide-react";
import { useSearchParams } from "next/navigation";
import { useEffect, useState } from "react";
import { toast } from "sonner";
import { useTRPC } from "@/components/providers/trpc-provider";
import { Dialog } from "@/components/canvas/dialog";
import { IntegrationIcon } from "@/components/canvas/integration-icon";
import type { CatalogIntegration } from "@/components/canvas/types";
import { ConnectionForm, siteOf, type ConnectionRecord } from "./connection-form";
import { SiteChooser } from "./site-chooser";

const STATUS: Record<string, string> = {
  ready: "border-green-200 bg-green-50 text-green-700",
  needs_authorization: "border-amber-200 bg-amber-50 text-amber-800",
  needs_reconnect: "border-red-200 bg-red-50 text-red-700",
  needs_site: "border-amber-200 bg-amber-50 text-amber-800",
  error: "border-red-200 bg-red-50 text-red-700",
};

/** A form connection whose settings are valid but have never passed a test (state.verifiedAt). */
export const untested = (c: Pick<ConnectionRecord, "status" | "state">, oauth: boolean) => !oauth && c.status === "ready" && !c.state?.verifiedAt;

export function ConnectionsPage({ workspaceId }: { workspaceId: string }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const params = useSearchParams();
  const catalog = useQuery(trpc.catalog.list.queryOptions({ workspaceId }));
  const list = useQuery(trpc.connections.list.queryOptions({ workspaceId }));
  const del = useMutation(trpc.connections.delete.mutationOptions());
  const verify = useMutation(trpc.connections.verify.mutationOptions());
  const begin = useMutation(trpc.connections.beginOAuth.mutationOptions());
  const [adding, setAdding] = useState<CatalogIntegration | null>(null);
  const [picking, setPicking] = useState(false);
  const [editing, setEditing] = useState<ConnectionRecord | null>(null);
  const [siteFor, setSiteFor] = useState<string | null>(params.get("chooseSite"));
  const integrations = ((catalog.data ?? []) as CatalogIntegration[]).filter((i) => i.connection);
  const byKey = new Map(integrations.map((i) => [i.key, i]));
  const refresh = () => qc.invalidateQueries({ queryKey: trpc.connections.list.queryKey() });
  useEffect(() => {
    const done = params.get("connected");
    if (done) toast.success("Connected.");
    const err = params.get("oauthError");
    if (err) toast.error(`Authorisation failed: ${err}`);
  }, [params]);

  const reconnect = async (c: ConnectionRecord) => {
    try {
      const { authorizeUrl } = await begin.mutateAsync({ workspaceId, connectionId: c.id, returnTo: `/w/${workspaceId}/connections` });
      window.location.assign(authorizeUrl);
    } catch (e) {
      toast.error((e as Error).message);
    }
  };
  const rows = (list.data ?? []) as ConnectionRecord[];
  return (
    <div className="page">
      <div className="page-header">
        <div>
          <h1>Connections</h1>
          <p className="text-sm text-muted">Accounts your automations use. Secrets are encrypted and never shown again.</p>
        </div>
        <button className="btn btn-primary" onClick={() => setPicking(true)} data-testid="new-connection">
          <Plus size={15} aria-hidden /> New connection
        </button>
      </div>
      {rows.length === 0 && !list.isLoading && (
        <div className="card flex flex-col items-center gap-2 px-6 py-14 text-center">
          <Cable size={28} className="text-accent" aria-hidden />
          <h2>No connections yet</h2>
          <p className="text-sm text-muted">Connect Prometheus/Alertmanager or your issue tracker to use their triggers and actions.</p>
        </div>
      )}
      <ul className="grid gap-3 md:grid-cols-2">
        {rows.map((c) => {
          const integ = byKey.get(c.integration);
          const oauth = integ?.connection?.kind === "oauth2";
          return (
            <li key={c.id} className="card p-4" data-testid={`connection-${c.name}`}>
              <div className="flex items-start gap-3">
                <IntegrationIcon integration={c.integration} icon={integ?.icon} size={18} />
                <div className="min-w-0 flex-1">
                  <div className="flex items-center gap-2">
                    <h2 className="truncate">{c.name}</h2>
                    {untested(c, oauth) ? (
                      <span
                        className="badge border-border text-muted"
                        data-testid="connection-status"
                        title="Valid settings, never tested: use Test to try them"
                      >
                        not tested
                      </span>
                    ) : (
                      <span className={`badge ${STATUS[c.status] ?? "border-border"}`} data-testid="connection-status">
                        {c.status.replace(/_/g, " ")}
                      </span>
                    )}
                  </div>
                  <p className="text-xs text-muted" data-testid="connection-site">
                    {integ?.title ?? c.integration}
                    {siteOf(c) ? ` · ${siteOf(c)}` : ""}
                  </p>
                  {c.statusMessage && <p className="mt-1 text-xs text-danger">{c.statusMessage}</p>}
                </div>
              </div>
              <div className="mt-3 flex flex-wrap gap-1.5">
                {(!oauth || c.status === "ready") && (
                  <button
                    className="btn btn-sm"
                    disabled={verify.isPending}
                    onClick={async () => {
                      try {
                        const r = (await verify.mutateAsync({ workspaceId, connectionId: c.id })) as { ok: boolean; message?: string };
                        if (r.ok) toast.success(r.message ?? "Connection works.");
                        else toast.error(r.message ?? "The test failed.");
                        refresh();
                      } catch (e) {
                        toast.error((e as Error).message);
                      }
                    }}
                  >
                    <PlugZap size={13} aria-hidden /> Test
                  </button>
                )}
                {/* Also for a ready account: to grant scopes asked for since, or to move to another user or site. */}
                {oauth && c.status !== "needs_site" && (
                  <button className={`btn btn-sm ${c.status === "ready" ? "" : "btn-primary"}`} onClick={() => reconnect(c)}>
                    <ExternalLink size={13} aria-hidden /> {c.status === "needs_authorization" ? "Connect" : "Reconnect"}
                  </button>
                )}
                {c.status === "needs_site" && (
                  <button className="btn btn-sm btn-primary" onClick={() => setSiteFor(c.id)}>
                    <Globe size={13} aria-hidden /> Choose site
                  </button>
                )}
                <button className="btn btn-sm" onClick={() => setEditing(c)}>
                  <Settings2 size={13} aria-hidden /> Settings
                </button>
                <button
                  className="btn btn-sm btn-ghost text-danger"
                  aria-label={`Delete ${c.name}`}
                  onClick={async () => {
                    if (!confirm(`Delete “${c.name}”? Nodes using it will fail validation until you pick another connection.`)) return;
                    try {
                      await del.mutateAsync({ workspaceId, connectionId: c.id });
                      refresh();
                    } catch (e) {
                      toast.error((e as Error).message);
                    }
                  }}
                >
                  <Trash2 size={13} />
                </button>
              </div>
            </li>
          );
        })}
      </ul>
      <Dialog open={picking} onClose={() => setPicking(false)} title="New connection">
        <ul className="space-y-2">
          {integrations.map((i) => (
            <li key={i.key}>
              <button
                className="flex w-full items-center gap-3 rounded-md border border-border p-3 text-left hover:bg-zinc-50"
                data-testid={`pick-integration-${i.key}`}
                onClick={() => {
                  setPicking(false);
                  setAdding(i);
                }}
              >
                <IntegrationIcon integration={i.key} icon={i.icon} size={18} />
                <span>
                  <span className="block font-medium">{i.title}</span>
                  <span className="block text-xs text-muted">{i.description}</span>
                </span>
              </button>
            </li>
          ))}
        </ul>
      </Dialog>
      <Dialog open={!!adding} onClose={() => setAdding(null)} title={adding ? `Connect ${adding.title}` : ""}>
        {adding && (
          <ConnectionForm
            workspaceId={workspaceId}
            integration={adding}
            onSaved={() => {
              setAdding(null);
              refresh();
            }}
          />
        )}
      </Dialog>
      <Dialog open={!!editing} onClose={() => setEditing(null)} title={editing ? `${editing.name} settings` : ""}>
        {editing && byKey.get(editing.integration) && (
          <ConnectionForm
            workspaceId={workspaceId}
            integration={byKey.get(editing.integration)!}
            existing={editing}
            onSaved={() => {
              setEditing(null);
              refresh();
            }}
          />
        )}
      </Dialog>
      <SiteChooser
        workspaceId={workspaceId}
        connectionId={siteFor}
        onClose={() => {
          setSiteFor(null);
          refresh();
        }}
      />
    </div>
  );
}
