"use client";
import { useMutation } from "@tanstack/react-query";
import { signIn } from "next-auth/react";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { useTRPC } from "@/components/providers/trpc-provider";
import { CredentialsForm } from "./credentials-form";
import { fieldErrorsOf } from "./field-errors";

export function AcceptInviteForm({ token, email, role }: { token: string; email: string | null; role: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const accept = useMutation(trpc.auth.acceptInvite.mutationOptions());
  const [error, setError] = useState<string | null>(null);
  return (
    <CredentialsForm
      title="Join Conveyor"
      intro={`You were invited as ${role}. Choose your password.`}
      submitLabel="Create account"
      withName
      fixedEmail={email}
      error={error}
      fieldErrors={fieldErrorsOf(accept.error)}
      onSubmit={async (v) => {
        setError(null);
        try {
          await accept.mutateAsync({ token, email: v.email, password: v.password, name: v.name || undefined });
          await signIn("credentials", { email: v.email, password: v.password, redirect: false });
          router.replace("/");
          router.refresh();
        } catch (e) {
          setError((e as Error).message);
        }
      }}
    />
  );
}
