import { redirect } from "next/navigation";
import { getDeps } from "@/server/deps";
import { hasOwner } from "@/server/services/users/setup-owner";
import { env } from "@/server/env";
import { SignInForm } from "@/components/auth/sign-in-form";
import { withPageErrors } from "@/server/http/page-errors";

export const dynamic = "force-dynamic";
export const metadata = { title: "Sign in" };

export default withPageErrors(async function SignInPage() {
  if (!(await hasOwner((await getDeps()).store))) redirect("/setup");
  const oidc = env.OIDC_ISSUER && env.OIDC_CLIENT_ID ? env.OIDC_NAME : null;
  return <SignInForm oidcName={oidc} />;
});
