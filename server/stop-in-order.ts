/**
 * The steps of a process's stop, run in order whatever happens to one of them: a step that fails is
 * reported and the rest still run, so a SIGTERM always ends the process. Before, the web process's
 * stop was one chain: when its first step failed (the module it loaded lazily was gone, because a
 * rebuild had replaced dist/server under the running server) nothing after it ran, `process.exit`
 * was never reached, and the process went on serving after SIGTERM until killed.
 */
export async function stopInOrder(
  steps: ReadonlyArray<readonly [what: string, step: () => unknown]>,
  report: (line: string) => void = console.error,
): Promise<boolean> {
  let ok = true;
  for (const [what, step] of steps) {
    try {
      await step();
    } catch (e) {
      ok = false;
      report(`Stopping: ${what} failed (${e instanceof Error ? e.message : String(e)}); going on with the rest of the stop.`);
    }
  }
  return ok;
}
