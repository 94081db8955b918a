// @vitest-environment jsdom
/** The run header keeps the automatic retries' backoff apart from the time until someone retried by hand. */
import { cleanup, render } from "@testing-library/react";
import { afterEach, expect, it } from "vitest";
import { RunWaits } from "./run-timing";

afterEach(cleanup);
const text = (timing: { retryWaitMs: number; manualRetryDelayMs: number }) => render(<RunWaits timing={timing} />).container.textContent;

it("a run retried by hand 22 minutes after it failed does not read as waiting between retries", () => {
  expect(text({ retryWaitMs: 0, manualRetryDelayMs: 22 * 60_000 })).toBe(" · retried by hand after 22 min 0 s");
});

it("the automatic retries' backoff reads as waiting between automatic retries, next to a manual retry's delay", () => {
  expect(text({ retryWaitMs: 1_500, manualRetryDelayMs: 22 * 60_000 })).toBe(" · waited 1.5 s between automatic retries · retried by hand after 22 min 0 s");
  cleanup();
  expect(text({ retryWaitMs: 0, manualRetryDelayMs: 0 })).toBe("");
});
