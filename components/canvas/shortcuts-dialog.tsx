"use client";
import { Dialog } from "./dialog";
import { SHORTCUTS } from "./use-editor-shortcuts";

export function ShortcutsDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const mac = typeof navigator !== "undefined" && /Mac/.test(navigator.platform);
  return (
    <Dialog open={open} onClose={onClose} title="Keyboard shortcuts">
      <table className="w-full text-sm">
        <tbody>
          {SHORTCUTS.map((s) => (
            <tr key={s.keys} className="border-b border-border last:border-0">
              <td className="py-1.5 pr-4">
                <kbd className="rounded border border-border bg-zinc-50 px-1.5 py-0.5 font-mono text-xs">{s.keys.replace(/Mod/g, mac ? "⌘" : "Ctrl")}</kbd>
              </td>
              <td className="py-1.5 text-zinc-700">{s.action}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Dialog>
  );
}
