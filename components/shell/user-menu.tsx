"use client";
import { signOut } from "next-auth/react";
import { LogOut } from "lucide-react";

export function UserMenu({ label, role }: { label: string; role: string }) {
  return (
    <div className="flex items-center justify-between gap-2 rounded-md border border-border px-2.5 py-2">
      <div className="min-w-0">
        <div className="truncate text-sm font-medium" data-testid="current-user">
          {label}
        </div>
        <div className="text-xs capitalize text-muted">{role}</div>
      </div>
      <button className="btn btn-ghost btn-sm" onClick={() => signOut({ callbackUrl: "/sign-in" })} aria-label="Sign out" title="Sign out">
        <LogOut size={16} aria-hidden />
      </button>
    </div>
  );
}
