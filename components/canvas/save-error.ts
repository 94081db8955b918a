/**
 * What a failed save means for the person editing: someone else saved first (a conflict), the session
 * ended, the server could not be reached, or the server refused the document. The raw messages
 * ("Failed to fetch", "Sign in first.", "reload it and apply your change again") were written for other
 * readers; in the editor the changes are still on screen, and each message says so and what to do.
 */
export type SaveFailure =
  | { kind: "conflict"; message: string }
  | { kind: "signed-out"; message: string }
  | { kind: "unreachable"; message: string }
  | { kind: "refused"; message: string };

export function saveFailure(error: unknown): SaveFailure {
  const err = error as { message?: string; data?: { httpStatus?: number; code?: string } | null; cause?: unknown } | null;
  const status = err?.data?.httpStatus;
  const code = err?.data?.code;
  if (status === 412 || code === "PRECONDITION_FAILED") {
    const at = /at version (\d+)/.exec(err?.message ?? "")?.[1];
    return {
      kind: "conflict",
      message: `Not saved: someone else saved this automation${at ? ` (now version ${at})` : ""} while you were editing. Your changes are still here: save them over theirs, or load theirs and drop yours.`,
    };
  }
  if (status === 401 || code === "UNAUTHORIZED")
    return {
      kind: "signed-out",
      message: "Not saved: you were signed out. Your changes are kept in this browser: sign in (in another tab, or here — they come back), then save again.",
    };
  // No answer from the server (connection refused, dropped, offline), or an answer that is not the API's
  // (a proxy's error page while the server restarts): the tRPC client has no `data` then.
  if (!err?.data)
    return {
      kind: "unreachable",
      message: "Not saved: the server could not be reached. Your changes are kept in this browser; save again when it is back.",
    };
  return { kind: "refused", message: `Not saved: ${err?.message ?? String(error)}` };
}
