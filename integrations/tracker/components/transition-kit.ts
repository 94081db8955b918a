/** Finding the transition that leads to a status (by name or id), shared by Create Issue and Transition Issue. */
import { NonRetryableError } from "../../core/errors";
import type { JiraTransition } from "../jira-client";

const same = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

export function findTransitionTo(transitions: JiraTransition[], target: string): JiraTransition | undefined {
  return transitions.find((t) => same(t.to.name, target) || t.to.id === target.trim());
}

export function reachableStatuses(transitions: JiraTransition[]): string[] {
  return [...new Set(transitions.map((t) => t.to.name))];
}

export function noTransitionError(key: string, current: string | undefined, target: string, transitions: JiraTransition[]): NonRetryableError {
  const reachable = reachableStatuses(transitions);
  return new NonRetryableError(
    `No available transition moves ${key} from "${current ?? "its current status"}" to "${target}". ` +
      (reachable.length
        ? `Reachable statuses: ${reachable.join(", ")}.`
        : "No transition is available to the connection's user (workflow conditions or permissions)."),
    { reachable },
  );
}
