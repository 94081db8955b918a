"use client";
/** On a node whose step failed in the automation's latest production run (editor only; test runs do not count): a red mark, the error as its name and tooltip, a link to the run. */
import Link from "next/link";
import { XCircle } from "lucide-react";
import type { LastFailure } from "../use-last-failure";

export function NodeFailureMark({ failure }: { failure: LastFailure }) {
  const text = `Failed in the latest production run: ${failure.message || "no error message"}`;
  return (
    <Link
      href={failure.href}
      className="nodrag nopan absolute -right-2.5 -bottom-2.5 rounded-full bg-surface p-0.5 text-red-600 shadow hover:ring-2 hover:ring-red-300"
      data-testid="node-last-failure"
      data-run-id={failure.runId}
      aria-label={text}
      title={text}
      onClick={(e) => e.stopPropagation()}
    >
      <XCircle size={16} aria-hidden />
    </Link>
  );
}
