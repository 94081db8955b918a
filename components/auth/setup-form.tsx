"use client";
import { useMutation } from "@tanstack/react-query";
import { signIn } from "next-auth/react";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { useTRPC } from "@/components/providers/trpc-provider";
import { CredentialsForm } from "./credentials-form";
import { fieldErrorsOf } from "./field-errors";

export function SetupForm() {
  const trpc = useTRPC();
  const router = useRouter();
  const setup = useMutation(trpc.auth.setupOwner.mutationOptions());
  const [error, setError] = useState<string | null>(null);
  return (
    <CredentialsForm
      title="Create the owner account"
      intro="This is a new Conveyor installation. The first account owns it; others join by invitation."
      submitLabel="Create account"
      withName
      error={error}
      fieldErrors={fieldErrorsOf(setup.error)}
      onSubmit={async ({ email, password, name }) => {
        setError(null);
        try {
          const r = await setup.mutateAsync({ email, password, name: name || undefined });
          await signIn("credentials", { email, password, redirect: false });
          router.replace(`/w/${r.workspaceId}/automations`);
          router.refresh();
        } catch (e) {
          setError((e as Error).message);
        }
      }}
    />
  );
}
