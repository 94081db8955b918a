"use client";
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/components/providers/trpc-provider";

/** Admin-only: recent audit entries (keys, members, connections, automations). */
export function AuditLog() {
  const trpc = useTRPC();
  const audit = useQuery(trpc.audit.list.queryOptions({ limit: 50 }));
  return (
    <section className="card space-y-3 p-5" aria-labelledby="audit-heading">
      <h2 id="audit-heading">Audit log</h2>
      {audit.error && <p className="field-error">{audit.error.message}</p>}
      {audit.data && audit.data.items.length === 0 && <p className="text-sm text-muted">Nothing recorded yet.</p>}
      {audit.data && audit.data.items.length > 0 && (
        <div className="relative overflow-x-auto">
          <table className="table">
            <thead>
              <tr>
                <th>When</th>
                <th>Who</th>
                <th>Action</th>
                <th>Target</th>
              </tr>
            </thead>
            <tbody>
              {audit.data.items.map((e) => (
                <tr key={e.id}>
                  <td className="whitespace-nowrap text-muted">{new Date(e.at).toLocaleString()}</td>
                  <td>{e.actor.replace(/^user:/, "")}</td>
                  <td>
                    <code className="text-xs">{e.action}</code>
                  </td>
                  <td className="text-xs" data-testid="audit-target">
                    {e.targetName ? (
                      <>
                        <span className="font-medium text-zinc-800">{e.targetName}</span> <span className="font-mono text-muted">{e.target}</span>
                      </>
                    ) : (
                      <span className="font-mono text-muted">{e.target}</span>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
