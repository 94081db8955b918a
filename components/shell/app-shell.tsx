"use client";
import Link from "next/link";
import { usePathname } from "next/navigation";
import { useState, type ReactNode } from "react";
import { BarChart3, Cable, ClipboardList, KeyRound, Menu, Rows3, Settings, Webhook, Workflow, X } from "lucide-react";
import { WorkspaceSwitcher } from "./workspace-switcher";
import { RunsNavLink } from "./runs-nav-link";
import { UserMenu } from "./user-menu";
import { ThemeToggle } from "@/components/theme/theme-toggle";

const NAV = [
  { href: "automations", label: "Automations", icon: Workflow },
  { href: "runs", label: "Runs", icon: null },
  { href: "tasks", label: "Tasks", icon: ClipboardList },
  { href: "lines", label: "Lines", icon: Rows3 },
  { href: "connections", label: "Connections", icon: Cable },
  { href: "intakes", label: "Intakes", icon: Webhook },
  { href: "api-keys", label: "API keys", icon: KeyRound },
  { href: "usage", label: "Usage", icon: BarChart3 },
  { href: "settings", label: "Settings", icon: Settings },
] as const;

export interface ShellProps {
  workspace: { id: string; name: string };
  workspaces: Array<{ id: string; name: string }>;
  user: { label: string; role: string };
  canCreateWorkspace: boolean;
  children: ReactNode;
}

/** The signed-in frame: sidebar (collapses to a drawer on narrow windows) + content. */
export function AppShell({ workspace, workspaces, user, canCreateWorkspace, children }: ShellProps) {
  const pathname = usePathname();
  const [open, setOpen] = useState(false);
  const base = `/w/${workspace.id}`;
  const nav = (
    <nav aria-label="Workspace" className="flex flex-1 flex-col gap-0.5 px-2">
      {NAV.map(({ href, label, icon: Icon }) => {
        const active = pathname.startsWith(`${base}/${href}`);
        const className = `flex items-center gap-2.5 rounded-md px-2.5 py-1.5 text-sm ${active ? "bg-accent-soft font-medium text-accent-strong" : "text-zinc-700 hover:bg-zinc-100"}`;
        // Runs carries the badge of recent failures (runs-nav-link.tsx).
        if (!Icon) return <RunsNavLink key={href} base={base} workspaceId={workspace.id} active={active} className={className} onNavigate={() => setOpen(false)} />;
        return (
          <Link
            key={href}
            href={`${base}/${href}`}
            onClick={() => setOpen(false)}
            aria-current={active ? "page" : undefined}
            className={className}
          >
            <Icon size={16} aria-hidden /> {label}
          </Link>
        );
      })}
    </nav>
  );
  const sidebar = (
    <div className="flex h-full w-60 flex-col gap-3 border-r border-border bg-surface py-3">
      <div className="flex items-center gap-2 px-4">
        {/* eslint-disable-next-line @next/next/no-img-element */}
        <img src="/logo.svg" alt="" width={22} height={22} />
        <span className="font-semibold tracking-tight">Conveyor</span>
      </div>
      <div className="px-2">
        <WorkspaceSwitcher current={workspace} workspaces={workspaces} canCreate={canCreateWorkspace} />
      </div>
      {nav}
      <div className="space-y-2 px-2">
        <div className="flex items-center justify-between px-1 text-xs text-muted">
          Theme <ThemeToggle />
        </div>
        <UserMenu label={user.label} role={user.role} />
      </div>
    </div>
  );
  return (
    <div className="flex h-full min-h-screen">
      <aside className="sticky top-0 hidden h-screen md:block">{sidebar}</aside>
      {open && (
        <div className="fixed inset-0 z-40 flex md:hidden" role="dialog" aria-modal="true" aria-label="Navigation">
          <div className="h-full">{sidebar}</div>
          <button className="flex-1 bg-black/30" aria-label="Close navigation" onClick={() => setOpen(false)} />
        </div>
      )}
      <div className="flex min-w-0 flex-1 flex-col">
        <header className="flex h-(--shell-bar-h) items-center gap-2 border-b border-border bg-surface px-3 md:hidden">
          <button className="btn btn-ghost btn-sm" aria-label="Open navigation" onClick={() => setOpen(true)}>
            {open ? <X size={18} /> : <Menu size={18} />}
          </button>
          <span className="font-medium">{workspace.name}</span>
        </header>
        <main className="min-w-0 flex-1">{children}</main>
      </div>
    </div>
  );
}
