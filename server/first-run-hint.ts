/**
 * What `npm start` prints after "ready on …" while the installation has no owner yet: the one next
 * step (the terminal otherwise ends at the ready line, and the README is the only place that says it).
 */
import type { Store } from "@/db/store";
import { hasOwner } from "./services/users/setup-owner";

export async function firstRunHint(store: Store, publicUrl: string): Promise<string | null> {
  if (await hasOwner(store)) return null;
  return `No owner yet: open ${publicUrl} to create the owner account (or run: npx conveyor owner create --email … --password …)`;
}
