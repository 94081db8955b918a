export { startRun, type StartRunInput } from "./start-run";
export { listRuns, getRunOrThrow } from "./get-runs";
export { cancelRun } from "./cancel-run";
export { retryRun, type RetryVersion } from "./retry-run";
export { startTestRun, type TestRunInput } from "./test-run";
export { recentFailures } from "./recent-failures";
