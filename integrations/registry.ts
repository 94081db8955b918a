/**
 * The only list of integrations. Adding an integration = one import and one entry here.
 * Lookups by component/trigger key are built once.
 */
import type { AnyComponent, AnyIntegration, AnyTrigger } from "./core/define";
import { core } from "./builtin";
import { metrics } from "./metrics";
import { tracker } from "./tracker";

// Integrations register here (keep alphabetical):
const INTEGRATIONS: AnyIntegration[] = [core as AnyIntegration, metrics as AnyIntegration, tracker as AnyIntegration];

export function listIntegrations(): AnyIntegration[] {
  return INTEGRATIONS;
}

let byKey: Map<string, { integration: AnyIntegration; unit: AnyComponent | AnyTrigger }> | undefined;

function index() {
  if (!byKey) {
    byKey = new Map();
    for (const integration of INTEGRATIONS) {
      for (const unit of [...integration.components, ...integration.triggers]) {
        if (byKey.has(unit.key)) throw new Error(`Duplicate key ${unit.key}`);
        byKey.set(unit.key, { integration, unit });
      }
    }
  }
  return byKey;
}

export function findUnit(key: string) {
  return index().get(key);
}

export function findComponent(key: string): AnyComponent | undefined {
  const hit = index().get(key);
  return hit?.unit.kind === "component" ? hit.unit : undefined;
}

export function findTrigger(key: string): AnyTrigger | undefined {
  const hit = index().get(key);
  return hit?.unit.kind === "trigger" ? hit.unit : undefined;
}

export function findIntegration(key: string): AnyIntegration | undefined {
  return INTEGRATIONS.find((i) => i.key === key);
}

/** Tests only: adds an integration of stub components (runner tests). */
export function registerTestIntegration(integration: AnyIntegration): void {
  if (!INTEGRATIONS.some((i) => i.key === integration.key)) INTEGRATIONS.push(integration);
  byKey = undefined;
}
