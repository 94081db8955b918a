import { StatusIcon, STATUS_STYLE, type StepStatus } from "@/components/canvas/nodes/node-run-status";

const BG: Record<string, string> = {
  succeeded: "border-green-200 bg-green-50 text-green-700",
  failed: "border-red-200 bg-red-50 text-red-700",
  running: "border-blue-200 bg-blue-50 text-blue-700",
  waiting: "border-amber-200 bg-amber-50 text-amber-700",
  queued: "border-zinc-200 bg-zinc-50 text-zinc-600",
  cancelled: "border-zinc-200 bg-zinc-50 text-zinc-500",
  skipped: "border-zinc-200 bg-zinc-50 text-zinc-400",
};

export function RunStatusBadge({ status }: { status: string }) {
  return (
    <span className={`badge gap-1 ${BG[status] ?? "border-border"}`} data-testid="run-status" data-status={status}>
      <StatusIcon status={status as StepStatus} size={12} />
      {STATUS_STYLE[status as StepStatus]?.label ?? status}
    </span>
  );
}
