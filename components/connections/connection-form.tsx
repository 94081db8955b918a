"use client";
/**
 * Create or edit a connection: name + the integration's settings form (generated from its schema).
 * Secret fields are write-only: left empty on edit, they keep their stored value. OAuth connections
 * show the callback URL to register in the vendor's console, the site they are connected to, and a
 * Test button once authorised.
 */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { CheckCircle2, ExternalLink, Globe, Loader2, PlugZap, XCircle } from "lucide-react";
import { CopyButton } from "@/components/canvas/copy-button";
import { useState } from "react";
import { toast } from "sonner";
import { useTRPC } from "@/components/providers/trpc-provider";
import { FormEnvProvider } from "@/components/canvas/config-panel/form-context";
import { SchemaForm } from "@/components/canvas/config-panel/schema-form";
import type { CatalogIntegration } from "@/components/canvas/types";
import { fieldProblems } from "@/components/shared/problems";

export interface ConnectionRecord {
  id: string;
  integration: string;
  name: string;
  config: Record<string, unknown>;
  status: string;
  statusMessage?: string | null;
  /** Non-secret integration state, e.g. the tracker site (`siteName`, `siteUrl`). */
  state?: Record<string, unknown>;
}

/** "Acme (https://acme.atlassian.net)" for a connection bound to a site, else null. */
export function siteOf(c: Pick<ConnectionRecord, "state"> | undefined): string | null {
  const name = typeof c?.state?.siteName === "string" ? c.state.siteName : null;
  const url = typeof c?.state?.siteUrl === "string" ? c.state.siteUrl : null;
  if (name && url) return `${name} (${url})`;
  return name ?? url;
}

/** Step 1 of an OAuth connection: the callback URL to paste into the vendor's developer console. */
function CallbackUrl({ workspaceId, integration }: { workspaceId: string; integration: CatalogIntegration }) {
  const trpc = useTRPC();
  const cb = useQuery(trpc.connections.oauthCallbackUrl.queryOptions({ workspaceId, integration: integration.key }));
  return (
    <div className="rounded-md border border-border bg-zinc-50 p-3 text-sm" data-testid="oauth-callback">
      <p className="mb-1.5 text-xs text-zinc-700">
        In the settings of your OAuth app for {integration.title} (the vendor&apos;s developer console), set the <strong>callback URL</strong> to:
      </p>
      <div className="flex gap-1.5">
        <input
          readOnly
          aria-label="OAuth callback URL"
          className="input font-mono text-xs"
          value={cb.data?.url ?? ""}
          data-testid="oauth-callback-url"
          onFocus={(e) => e.target.select()}
        />
        {cb.data && <CopyButton text={cb.data.url} label="Copy the callback URL" testId="copy-oauth-callback" />}
      </div>
      <p className="mt-1.5 text-xs text-muted">
        This address must open in your browser (its host is CONVEYOR_PUBLIC_URL). Then paste the app&apos;s Client ID and Secret below.
      </p>
    </div>
  );
}

/** Drops empty strings so optional fields and unchanged secrets are simply absent. */
function clean(config: Record<string, unknown>) {
  return Object.fromEntries(Object.entries(config).filter(([, v]) => v !== "" && v !== undefined));
}

const settingsKey = (config: Record<string, unknown>) => JSON.stringify(Object.entries(clean(config)).sort(([a], [b]) => a.localeCompare(b)));

export function ConnectionForm({
  workspaceId,
  integration,
  existing,
  returnTo,
  onSaved,
  beforeRedirect,
}: {
  workspaceId: string;
  integration: CatalogIntegration;
  existing?: ConnectionRecord;
  returnTo?: string;
  onSaved?: (c: ConnectionRecord) => void;
  beforeRedirect?: (c: ConnectionRecord) => void;
}) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const create = useMutation(trpc.connections.create.mutationOptions());
  const update = useMutation(trpc.connections.update.mutationOptions());
  const verify = useMutation(trpc.connections.verify.mutationOptions());
  const begin = useMutation(trpc.connections.beginOAuth.mutationOptions());
  const [name, setName] = useState(existing?.name ?? `${integration.title}`);
  const [config, setConfig] = useState<Record<string, unknown>>(existing?.config ?? {});
  const [result, setResult] = useState<{ ok: boolean; message?: string } | null>(null);
  // After a first save (e.g. a "Save and test" that failed), further saves update the same connection.
  const [current, setCurrent] = useState<ConnectionRecord | undefined>(existing);
  const error = create.error ?? update.error;
  const problems = fieldProblems(error);
  const configProblems = Object.fromEntries(
    Object.entries(problems)
      .filter(([k]) => k.startsWith("config."))
      .map(([k, v]) => [k.slice(7), v]),
  );
  const oauth = integration.connection?.kind === "oauth2";
  // Tokens are granted for the settings they were asked with (app, scopes such as the tracker's ops features):
  // saving changed settings of a connected OAuth account goes through the consent again.
  const reconnectNeeded = oauth && current?.status === "ready" && settingsKey(config) !== settingsKey(current.config ?? {});

  const save = async () => {
    const body = { name, config: clean(config) };
    const saved = (
      current
        ? await update.mutateAsync({ workspaceId, connectionId: current.id, ...body })
        : await create.mutateAsync({ workspaceId, integration: integration.key, ...body })
    ) as ConnectionRecord;
    setCurrent(saved);
    qc.invalidateQueries({ queryKey: trpc.connections.list.queryKey() });
    return saved;
  };
  /** Saves and closes: the OAuth flow (connect when not yet connected), or a form connection left untested. */
  const saveOnly = async () => {
    try {
      const saved = await save();
      if (oauth && (saved.status !== "ready" || reconnectNeeded)) {
        const { authorizeUrl } = await begin.mutateAsync({ workspaceId, connectionId: saved.id, returnTo: returnTo ?? `/w/${workspaceId}/connections` });
        beforeRedirect?.(saved);
        window.location.assign(authorizeUrl);
        return;
      }
      toast.success(current ? "Connection saved" : "Connection created");
      onSaved?.(saved);
    } catch {
      /* problems shown on fields */
    }
  };
  const busy = create.isPending || update.isPending || begin.isPending;
  const site = siteOf(current);
  /**
   * Saves, then tests against the service. A form connection that passes is done (the dialog closes);
   * one that fails stays open with the exact failure, to fix or to keep with "Save without testing".
   */
  const saveAndTest = async () => {
    setResult(null);
    try {
      const saved = await save();
      const r = (await verify.mutateAsync({ workspaceId, connectionId: saved.id })) as { ok: boolean; message?: string };
      setResult(r);
      if (r.ok && !oauth && onSaved) {
        toast.success(`${current ? "Saved" : "Created"} “${saved.name}” · test passed`);
        onSaved(saved);
      }
    } catch (err) {
      if (!fieldProblems(err) || !Object.keys(fieldProblems(err)).length) setResult({ ok: false, message: (err as Error).message });
    }
  };
  // Enter submits the primary action: connect (OAuth) or save and test (a form connection).
  const onSubmit = (e: React.FormEvent) => {
    e.preventDefault();
    void (oauth ? saveOnly() : saveAndTest());
  };
  const testing = verify.isPending;
  return (
    <form className="space-y-4" onSubmit={onSubmit} data-testid="connection-form">
      {oauth && <CallbackUrl workspaceId={workspaceId} integration={integration} />}
      {oauth && current && (
        <p className="flex items-center gap-2 text-sm" data-testid="connection-site">
          <Globe size={14} className="text-accent" aria-hidden />
          {current.status === "ready" && site ? (
            <span>
              Connected to <strong>{site}</strong>
            </span>
          ) : (
            <span className="text-muted">Not connected to a site yet ({current.status.replace(/_/g, " ")}).</span>
          )}
        </p>
      )}
      <div>
        <label htmlFor="connection-name" className="label">
          Name
        </label>
        <input
          id="connection-name"
          className="input"
          value={name}
          onChange={(e) => setName(e.target.value)}
          required
          aria-invalid={!!problems.name || undefined}
        />
        {problems.name && <p className="field-error">{problems.name}</p>}
      </div>
      {integration.connection && (
        <FormEnvProvider value={{ idPrefix: `conn-${integration.key}`, config, problems: configProblems, expressionPaths: [] }}>
          <SchemaForm schema={integration.connection.schema} value={config} onChange={(patch) => setConfig((c) => ({ ...c, ...patch }))} />
        </FormEnvProvider>
      )}
      {error && !Object.keys(problems).length && (
        <p className="field-error" role="alert">
          {error.message}
        </p>
      )}
      {result && (
        <p
          role="status"
          data-testid="verify-result"
          className={`flex items-start gap-2 rounded-md border p-2.5 text-sm ${result.ok ? "border-green-200 bg-green-50 text-green-800" : "border-red-200 bg-red-50 text-danger"}`}
        >
          {result.ok ? <CheckCircle2 size={16} className="mt-0.5 shrink-0" /> : <XCircle size={16} className="mt-0.5 shrink-0" />}
          <span>{result.message ?? (result.ok ? "Connection works." : "The test failed.")}</span>
        </p>
      )}
      {oauth ? (
        <div className="flex flex-wrap gap-2">
          <button className="btn btn-primary" disabled={busy} data-testid="connection-save">
            {busy ? <Loader2 size={14} className="animate-spin" /> : <ExternalLink size={14} aria-hidden />}{" "}
            {current?.status !== "ready" ? "Save and connect" : reconnectNeeded ? "Save and reconnect" : "Save"}
          </button>
          {current && (
            <button
              type="button"
              className="btn"
              disabled={testing || busy || current.status !== "ready"}
              title={current.status !== "ready" ? "Connect the account first" : undefined}
              data-testid="connection-test"
              onClick={saveAndTest}
            >
              {testing ? <Loader2 size={14} className="animate-spin" /> : <PlugZap size={14} aria-hidden />} Test
            </button>
          )}
        </div>
      ) : (
        <div className="flex flex-wrap items-center gap-2">
          <button className="btn btn-primary" disabled={testing || busy} data-testid="connection-test">
            {testing || busy ? <Loader2 size={14} className="animate-spin" /> : <PlugZap size={14} aria-hidden />} Save and test
          </button>
          <button type="button" className="btn btn-ghost" disabled={testing || busy} data-testid="connection-save" onClick={saveOnly}>
            Save without testing
          </button>
        </div>
      )}
    </form>
  );
}
