/** How the command line reports a failure: the message, then every field problem under the flag that set it. */

/** Field names of the services' problems → the flag a command-line user typed. */
const FLAG_OF: Record<string, string> = {
  expiresAt: "--expires",
  workspaceIds: "--workspace",
  name: "--name",
  role: "--role",
  email: "--email",
  password: "--password",
};

export function formatCliError(e: { message: string; errors?: { path: string; message: string }[] }): string {
  const lines = [`conveyor: ${e.message}`];
  for (const p of e.errors ?? []) {
    const head = p.path.split(".")[0]!;
    const where = FLAG_OF[head] ? `${FLAG_OF[head]}${p.path.slice(head.length)}` : p.path || "(input)";
    lines.push(`  ${where}: ${p.message}`);
  }
  return lines.join("\n");
}
