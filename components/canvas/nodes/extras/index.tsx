/** Integration-specific panel chrome, keyed by trigger/component key (the exception, not the rule). */
import { MetricsOnAlertExtra } from "./metrics.onAlert";

export interface ExtraProps {
  url: string;
  instructions: Array<{ title: string; language?: string; text: string }>;
}

const KEYS = new Set(["metrics.onAlert"]);

export function hasExtra(key: string): boolean {
  return KEYS.has(key);
}

export function NodeExtra({ nodeKey, ...props }: ExtraProps & { nodeKey: string }) {
  switch (nodeKey) {
    case "metrics.onAlert":
      return <MetricsOnAlertExtra {...props} />;
    default:
      return null;
  }
}
