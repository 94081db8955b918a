"use client";
/** Inline "connect" from a node's panel: the same form as the connections page, in a dialog. */
import { Dialog } from "@/components/canvas/dialog";
import type { CatalogIntegration } from "@/components/canvas/types";
import { ConnectionForm, type ConnectionRecord } from "./connection-form";

export function ConnectionDialog({
  workspaceId,
  integration,
  returnTo,
  onClose,
  onCreated,
  beforeRedirect,
}: {
  workspaceId: string;
  integration: CatalogIntegration | null;
  returnTo?: string;
  onClose: () => void;
  onCreated: (c: ConnectionRecord) => void;
  beforeRedirect?: (c: ConnectionRecord) => void;
}) {
  return (
    <Dialog open={!!integration} onClose={onClose} title={integration ? `Connect ${integration.title}` : "Connect"}>
      {integration && (
        <ConnectionForm
          workspaceId={workspaceId}
          integration={integration}
          returnTo={returnTo}
          beforeRedirect={beforeRedirect}
          onSaved={(c) => {
            onCreated(c);
            onClose();
          }}
        />
      )}
    </Dialog>
  );
}
