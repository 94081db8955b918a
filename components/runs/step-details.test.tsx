// @vitest-environment jsdom
/** A step queued again after a failed attempt says it is retrying (its badge alone read "Queued"). */
import { cleanup, render, screen } from "@testing-library/react";
import { afterEach, expect, it } from "vitest";
import { StepDetails } from "./step-details";

afterEach(cleanup);

const base = {
  id: "stp_1",
  nodeId: "n2",
  name: "createSilence",
  key: "metrics.createSilence",
  input: { duration: "1h" },
  output: null,
  logs: [],
  startedAt: "2026-11-25T07:03:33.000Z",
  finishedAt: null,
};
const failed = (i: number) => ({ startedAt: `2026-11-25T07:03:3${i}.000Z`, durationMs: 3, error: "Alertmanager is unreachable", retryable: true });

it("a step waiting for its automatic retry says so, and which attempt failed", () => {
  render(<StepDetails step={{ ...base, status: "queued", attempts: [failed(3), failed(4)], error: "Alertmanager is unreachable" }} />);
  expect(screen.getByTestId("step-retrying").textContent).toBe("Retrying · attempt 3 next");
  expect(screen.getByTestId("step-error").textContent).toBe("Attempt 2 failed: Alertmanager is unreachable");
});

it("a failed step or a first queued one does not", () => {
  render(
    <StepDetails step={{ ...base, status: "failed", attempts: [failed(3)], error: "Alertmanager is unreachable", finishedAt: "2026-11-25T07:03:40.000Z" }} />,
  );
  expect(screen.queryByTestId("step-retrying")).toBeNull();
  expect(screen.getByTestId("step-error").textContent).toBe("Alertmanager is unreachable");
  cleanup();
  render(<StepDetails step={{ ...base, status: "queued", attempts: [], error: null, startedAt: null }} />);
  expect(screen.queryByTestId("step-retrying")).toBeNull();
});

it("a step queued again because someone retried the run says it was retried by hand, not that it is retrying by itself", () => {
  const retried = { ...failed(4), retryable: false, manualRetryAt: "2026-11-25T07:25:34.000Z" };
  render(<StepDetails step={{ ...base, status: "queued", attempts: [failed(3), retried], error: null }} />);
  expect(screen.getByTestId("step-retrying").textContent).toBe("Retried by hand · attempt 3 next");
  const results = screen.getAllByRole("row").map((r) => r.lastElementChild?.textContent);
  expect(results.slice(1)).toEqual(["Alertmanager is unreachable (retried)", "Alertmanager is unreachable (retried by hand)"]);
});
