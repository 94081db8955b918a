/** A page whose subject could not be loaded (deleted, mistyped, not visible): the reason and a way back. */
import { ArrowLeft } from "lucide-react";
import Link from "next/link";

export function LoadError({ message, backHref, backLabel }: { message: string; backHref: string; backLabel: string }) {
  return (
    <div className="page space-y-3" data-testid="load-error">
      <p role="alert" className="text-danger">
        {message}
      </p>
      <Link className="btn" href={backHref}>
        <ArrowLeft size={14} aria-hidden /> {backLabel}
      </Link>
    </div>
  );
}
