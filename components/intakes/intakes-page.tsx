"use client";
/** Intakes: trigger URLs of automations and webhook intakes that create tasks on a line. */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Plus, Trash2 } from "lucide-react";
import { useState } from "react";
import { useTRPC } from "@/components/providers/trpc-provider";
import { CopyButton } from "@/components/canvas/copy-button";
import { Dialog } from "@/components/canvas/dialog";
import { fieldProblems } from "@/components/shared/problems";
import { ConfirmActionButton } from "@/components/shared/confirm-action-button";
import { DataTable } from "@/components/shared/data-table";
import { signingSnippet } from "./signing-snippet";

export function IntakesPage({ workspaceId }: { workspaceId: string }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const intakes = useQuery(trpc.intakes.list.queryOptions({ workspaceId, limit: 200 }));
  const lines = useQuery(trpc.lines.list.queryOptions({ workspaceId, limit: 200 }));
  const create = useMutation(trpc.intakes.createWebhook.mutationOptions());
  const remove = useMutation(trpc.intakes.delete.mutationOptions());
  const setSignature = useMutation(trpc.intakes.updateSignature.mutationOptions());
  const [requireTimestamp, setRequireTimestamp] = useState(true);
  const [created, setCreated] = useState<{ url: string; requireTimestamp: boolean } | null>(null);
  const [open, setOpen] = useState(false);
  const [name, setName] = useState("");
  const [lineId, setLineId] = useState("");
  const [secret, setSecret] = useState<string | null>(null);
  const problems = fieldProblems(create.error);
  const refresh = () => qc.invalidateQueries({ queryKey: trpc.intakes.list.queryKey() });
  return (
    <div className="page">
      <div className="page-header">
        <div>
          <h1>Intakes</h1>
          <p className="text-sm text-muted">Where events come in: trigger URLs of automations, and webhooks that turn a JSON POST into a task on a line.</p>
        </div>
        <button
          className="btn btn-primary"
          onClick={() => {
            setSecret(null);
            create.reset();
            setOpen(true);
          }}
        >
          <Plus size={15} aria-hidden /> New webhook intake
        </button>
      </div>
      <DataTable
        columns={["Kind", "Name / node", "URL", "Status", "Events", "Last event", "Timestamped signatures only"]}
        actions
        empty={intakes.data?.data.length === 0 && "No intakes yet. Saving an enabled automation with a webhook trigger creates one."}
      >
        {intakes.data?.data.map((i) => {
          const row = i as typeof i & { name?: string; nodeId?: string | null };
          return (
            <tr key={i.id}>
              <td>
                <span className="badge border-border">{i.kind}</span>
              </td>
              <td className="text-sm">{row.name ?? row.nodeId ?? "—"}</td>
              <td className="max-w-xs">
                {i.url ? (
                  <div className="flex items-center gap-1">
                    <code className="truncate text-xs">{i.url}</code>
                    <CopyButton text={i.url} label="Copy intake URL" />
                  </div>
                ) : (
                  <span className="text-muted">—</span>
                )}
              </td>
              <td className="text-xs">{i.status}</td>
              <td className="tabular-nums">{i.eventCount}</td>
              <td className="text-xs text-muted">{i.lastEventAt ? new Date(i.lastEventAt).toLocaleString() : "Never"}</td>
              <td className="text-xs">
                {i.signature ? (
                  <input
                    type="checkbox"
                    aria-label={`Require timestamped signatures on ${row.name ?? i.id}`}
                    checked={i.signature.requireTimestampedSignature}
                    disabled={setSignature.isPending}
                    onChange={(e) =>
                      setSignature.mutate({ workspaceId, intakeId: i.id, requireTimestampedSignature: e.target.checked }, { onSettled: refresh })
                    }
                  />
                ) : (
                  <span className="text-muted" title="Set on the trigger node">
                    —
                  </span>
                )}
              </td>
              <td className="text-right">
                {i.kind === "webhook" && (
                  <ConfirmActionButton
                    className="btn btn-ghost btn-sm text-danger"
                    label={`Delete intake ${row.name ?? i.id}`}
                    confirm="Delete this intake? Its URL stops accepting posts."
                    action={() => remove.mutateAsync({ workspaceId, intakeId: i.id })}
                    onSettled={refresh}
                    failure={(m) => `Not deleted: ${m}`}
                  >
                    <Trash2 size={14} aria-hidden />
                  </ConfirmActionButton>
                )}
              </td>
            </tr>
          );
        })}
      </DataTable>
      <Dialog open={open} onClose={() => setOpen(false)} title="New webhook intake">
        {secret ? (
          <div className="space-y-3 text-sm">
            <p>Send JSON to this URL to create a task. The secret is shown once.</p>
            <pre className="overflow-auto rounded bg-zinc-950 p-3 text-xs text-zinc-100">{secret}</pre>
            {created && (
              <>
                <p>
                  How to sign: <code>X-Conveyor-Signature: t=&lt;unix seconds&gt;,v1=&lt;hex HMAC-SHA256 of &quot;&lt;t&gt;.&lt;raw body&gt;&quot;&gt;</code>,
                  signed when sent (retries too); accepted once, within the server&apos;s tolerance (5 minutes unless changed).
                  {created.requireTimestamp
                    ? " This intake accepts nothing else."
                    : " A bearer secret or a body-only sha256= signature is accepted too, without replay protection."}
                </p>
                <pre aria-label="How to sign" className="overflow-auto rounded bg-zinc-950 p-3 text-xs text-zinc-100">
                  {signingSnippet(created.url)}
                </pre>
              </>
            )}
            <button className="btn" onClick={() => setOpen(false)}>
              Done
            </button>
          </div>
        ) : (
          <form
            className="space-y-4"
            onSubmit={async (e) => {
              e.preventDefault();
              try {
                const r = (await create.mutateAsync({ workspaceId, name, lineId, requireTimestampedSignature: requireTimestamp })) as {
                  url?: string | null;
                  secret?: string;
                };
                setSecret(JSON.stringify(r, null, 2));
                setCreated(r.url ? { url: r.url, requireTimestamp } : null);
                refresh();
              } catch {
                /* shown on fields */
              }
            }}
          >
            <div>
              <label htmlFor="intake-name" className="label">
                Name
              </label>
              <input id="intake-name" className="input" value={name} onChange={(e) => setName(e.target.value)} required />
              {problems.name && <p className="field-error">{problems.name}</p>}
            </div>
            <div>
              <label htmlFor="intake-line" className="label">
                Line
              </label>
              <select
                id="intake-line"
                className="input"
                value={lineId}
                onChange={(e) => setLineId(e.target.value)}
                required
                aria-invalid={!!problems.lineId || undefined}
              >
                <option value="">Choose a line…</option>
                {lines.data?.data.map((l) => (
                  <option key={l.id} value={l.id}>
                    {l.name}
                  </option>
                ))}
              </select>
              {problems.lineId && <p className="field-error">{problems.lineId}</p>}
            </div>
            <label className="flex items-start gap-2 text-sm">
              <input type="checkbox" checked={requireTimestamp} onChange={(e) => setRequireTimestamp(e.target.checked)} />
              <span>
                Require timestamped signatures
                <span className="block text-xs text-muted">
                  Each POST must carry X-Conveyor-Signature: t=…,v1=… and is accepted once, so a captured delivery cannot be sent again. Uncheck for senders
                  that can only send the secret as a bearer token or sign the body alone.
                </span>
              </span>
            </label>
            {create.error && !Object.keys(problems).length && <p className="field-error">{create.error.message}</p>}
            <button className="btn btn-primary" disabled={create.isPending}>
              Create
            </button>
          </form>
        )}
      </Dialog>
    </div>
  );
}
