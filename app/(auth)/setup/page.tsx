import { redirect } from "next/navigation";
import { getDeps } from "@/server/deps";
import { hasOwner } from "@/server/services/users/setup-owner";
import { SetupForm } from "@/components/auth/setup-form";
import { withPageErrors } from "@/server/http/page-errors";

export const dynamic = "force-dynamic";
export const metadata = { title: "Set up" };

/** First visit on an empty installation: create the owner account (afterwards: invitation only). */
export default withPageErrors(async function SetupPage() {
  if (await hasOwner((await getDeps()).store)) redirect("/sign-in");
  return <SetupForm />;
});
