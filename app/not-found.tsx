import Link from "next/link";

export const metadata = { title: "Not found" };

/** Any unknown page (an unknown workspace, a mistyped address): says so and leads back (Next's bare 404 had no way out). */
export default function NotFound() {
  return (
    <main className="flex min-h-screen items-center justify-center p-6">
      <div className="card max-w-sm space-y-3 p-6 text-center" data-testid="not-found">
        <h1>Page not found</h1>
        <p className="text-sm text-muted">This page does not exist, or it is in a workspace you are not a member of.</p>
        <Link className="btn btn-primary" href="/">
          Go to your workspace
        </Link>
      </div>
    </main>
  );
}
