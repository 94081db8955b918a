"use client";
import { useState, type FormEvent, type ReactNode } from "react";
import { MIN_PASSWORD_LENGTH } from "@/server/contracts/password";

export interface CredentialsValues {
  email: string;
  password: string;
  name: string;
}

/** Email/password form shared by sign-in, owner set-up and invitation pages. */
export function CredentialsForm(props: {
  title: string;
  intro?: ReactNode;
  submitLabel: string;
  withName?: boolean;
  fixedEmail?: string | null;
  error?: string | null;
  fieldErrors?: Record<string, string>;
  onSubmit(values: CredentialsValues): Promise<void>;
  footer?: ReactNode;
}) {
  const [busy, setBusy] = useState(false);
  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    setBusy(true);
    try {
      await props.onSubmit({ email: String(f.get("email") ?? ""), password: String(f.get("password") ?? ""), name: String(f.get("name") ?? "") });
    } finally {
      setBusy(false);
    }
  }
  const fe = props.fieldErrors ?? {};
  return (
    <form onSubmit={submit} className="card space-y-4 p-6" noValidate>
      <div>
        <h1>{props.title}</h1>
        {props.intro && <p className="mt-1 text-sm text-muted">{props.intro}</p>}
      </div>
      {props.withName && (
        <div>
          <label className="label" htmlFor="name">
            Your name
          </label>
          <input className="input" id="name" name="name" autoComplete="name" />
        </div>
      )}
      <div>
        <label className="label" htmlFor="email">
          Email
        </label>
        <input
          className="input"
          id="email"
          name="email"
          type="email"
          autoComplete="email"
          required
          defaultValue={props.fixedEmail ?? undefined}
          readOnly={Boolean(props.fixedEmail)}
          aria-invalid={Boolean(fe.email)}
        />
        {fe.email && <p className="field-error">{fe.email}</p>}
      </div>
      <div>
        <label className="label" htmlFor="password">
          Password
        </label>
        <input
          className="input"
          id="password"
          name="password"
          type="password"
          autoComplete={props.withName ? "new-password" : "current-password"}
          required
          aria-invalid={Boolean(fe.password)}
          aria-describedby={props.withName && !fe.password ? "password-help" : undefined}
        />
        {fe.password && <p className="field-error">{fe.password}</p>}
        {/* A new password's rule, said before the first try (it was only said once refused). */}
        {props.withName && !fe.password && (
          <p id="password-help" className="help">
            At least {MIN_PASSWORD_LENGTH} characters.
          </p>
        )}
      </div>
      {props.error && (
        <p role="alert" data-testid="form-error" className="rounded-md bg-red-50 px-3 py-2 text-sm text-danger">
          {props.error}
        </p>
      )}
      <button type="submit" className="btn btn-primary w-full" disabled={busy}>
        {busy ? "Please wait…" : props.submitLabel}
      </button>
      {props.footer}
    </form>
  );
}
