/**
 * A commit whose outcome is not known: the statement (or COMMIT) was sent to the database and no
 * reply came (a read timeout, a connection lost after sending), and checking afterwards whether it
 * landed did not get an answer in time either. The work may or may not be stored; a door must not
 * give a definite answer for it (neither 2xx nor "not stored"). Errors other than this one from a
 * commit mean it was not stored (rolled back, or never sent).
 */
export class CommitOutcomeUnknownError extends Error {
  override readonly name = "CommitOutcomeUnknownError";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

export function isCommitOutcomeUnknown(e: unknown): e is CommitOutcomeUnknownError {
  return e instanceof CommitOutcomeUnknownError;
}
