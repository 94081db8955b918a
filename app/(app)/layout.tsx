import { redirect } from "next/navigation";
import type { ReactNode } from "react";
import { getSessionActor } from "@/server/auth/session";
import { withPageErrors } from "@/server/http/page-errors";

export const dynamic = "force-dynamic";

/** Everything under (app) needs a signed-in member. */
export default withPageErrors(async function SignedInLayout({ children }: { children: ReactNode }) {
  const actor = await getSessionActor();
  if (!actor) redirect("/sign-in");
  return children;
});
