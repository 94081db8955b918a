"use client";
import { useMutation, useQuery } from "@tanstack/react-query";
import { Globe } from "lucide-react";
import { toast } from "sonner";
import { useTRPC } from "@/components/providers/trpc-provider";
import { Dialog } from "@/components/canvas/dialog";

/** When the authorised account reaches several sites, the user picks one. */
export function SiteChooser({
  workspaceId,
  connectionId,
  onClose,
  onChosen,
}: {
  workspaceId: string;
  connectionId: string | null;
  onClose: () => void;
  onChosen?: (connectionId: string) => void;
}) {
  const trpc = useTRPC();
  const sites = useQuery({ ...trpc.connections.siteChoices.queryOptions({ workspaceId, connectionId: connectionId ?? "" }), enabled: !!connectionId });
  const choose = useMutation(trpc.connections.chooseSite.mutationOptions());
  return (
    <Dialog open={!!connectionId} onClose={onClose} title="Choose a site">
      <p className="mb-3 text-sm text-muted">Your account can reach several sites. Pick the one this connection works with.</p>
      <ul className="space-y-2" data-testid="site-choices">
        {(sites.data ?? []).map((s) => (
          <li key={s.value}>
            <button
              className="flex w-full items-center gap-2 rounded-md border border-border p-3 text-left hover:bg-zinc-50"
              onClick={async () => {
                try {
                  await choose.mutateAsync({ workspaceId, connectionId: connectionId!, value: s.value });
                  toast.success(`Using ${s.label}`);
                  onChosen?.(connectionId!);
                  onClose();
                } catch (e) {
                  toast.error((e as Error).message);
                }
              }}
            >
              <Globe size={15} className="text-accent" aria-hidden /> {s.label}
            </button>
          </li>
        ))}
      </ul>
    </Dialog>
  );
}
