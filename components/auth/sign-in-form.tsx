"use client";
import { signIn } from "next-auth/react";
import { useRouter, useSearchParams } from "next/navigation";
import { useState } from "react";
import { safeReturnPath } from "@/server/http/return-path";
import { CredentialsForm } from "./credentials-form";

export function SignInForm({ oidcName }: { oidcName: string | null }) {
  const router = useRouter();
  const params = useSearchParams();
  const [error, setError] = useState<string | null>(params.get("error") ? "Sign-in failed." : null);
  return (
    <CredentialsForm
      title="Sign in"
      submitLabel="Sign in"
      error={error}
      onSubmit={async ({ email, password }) => {
        setError(null);
        const res = await signIn("credentials", { email, password, redirect: false });
        if (!res || res.error) {
          setError(res?.error && res.error !== "CredentialsSignin" ? res.error : "Wrong email or password.");
          return;
        }
        // Back to a page of this site only: `?callbackUrl=https://evil.example` must not send a signed-in user away.
        router.replace(safeReturnPath(params.get("callbackUrl")));
        router.refresh();
      }}
      footer={
        oidcName ? (
          <button type="button" className="btn w-full" onClick={() => signIn("oidc", { callbackUrl: "/" })}>
            Continue with {oidcName}
          </button>
        ) : null
      }
    />
  );
}
