/** Integration-specific panel chrome, keyed by trigger/component key (the exception, not the rule). */
import type { ComponentType } from "react";
import { MetricsOnAlertExtra } from "./metrics.onAlert";

export interface ExtraProps {
  url: string;
  instructions: Array<{ title: string; language?: string; text: string }>;
}

const EXTRAS: Record<string, ComponentType<ExtraProps>> = { "metrics.onAlert": MetricsOnAlertExtra };

export function extrasFor(key: string): ComponentType<ExtraProps> | undefined {
  return EXTRAS[key];
}
