export { startRun, type StartRunInput } from "./start-run";
export { listRuns, getRunOrThrow } from "./get-runs";
export { cancelRun, retryRun } from "./cancel-retry";
