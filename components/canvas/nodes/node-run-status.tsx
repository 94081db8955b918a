/** Run status overlay on a node (run view): colour ring + icon, labelled for screen readers. */
import { CheckCircle2, CircleDashed, Clock, Loader2, MinusCircle, XCircle } from "lucide-react";

export type StepStatus = "queued" | "running" | "waiting" | "succeeded" | "failed" | "cancelled" | "skipped";

export const STATUS_STYLE: Record<StepStatus, { ring: string; text: string; label: string }> = {
  queued: { ring: "ring-zinc-300", text: "text-zinc-500", label: "Queued" },
  running: { ring: "ring-blue-400", text: "text-blue-600", label: "Running" },
  waiting: { ring: "ring-amber-400", text: "text-amber-600", label: "Waiting" },
  succeeded: { ring: "ring-green-500", text: "text-green-600", label: "Succeeded" },
  failed: { ring: "ring-red-500", text: "text-red-600", label: "Failed" },
  cancelled: { ring: "ring-zinc-400", text: "text-zinc-500", label: "Cancelled" },
  skipped: { ring: "ring-zinc-200", text: "text-zinc-400", label: "Skipped" },
};

export function StatusIcon({ status, size = 14 }: { status: StepStatus; size?: number }) {
  const cls = STATUS_STYLE[status]?.text ?? "text-zinc-500";
  switch (status) {
    case "succeeded":
      return <CheckCircle2 size={size} className={cls} aria-hidden />;
    case "failed":
      return <XCircle size={size} className={cls} aria-hidden />;
    case "running":
      return <Loader2 size={size} className={`${cls} animate-spin`} aria-hidden />;
    case "waiting":
      return <Clock size={size} className={cls} aria-hidden />;
    case "cancelled":
      return <MinusCircle size={size} className={cls} aria-hidden />;
    default:
      return <CircleDashed size={size} className={cls} aria-hidden />;
  }
}

export function NodeRunStatus({ status }: { status: StepStatus }) {
  return (
    <span
      className="absolute -top-2.5 -right-2.5 rounded-full bg-surface p-0.5 shadow"
      data-testid="node-run-status"
      data-status={status}
      title={STATUS_STYLE[status]?.label}
    >
      <StatusIcon status={status} size={16} />
      <span className="sr-only">{STATUS_STYLE[status]?.label}</span>
    </span>
  );
}
