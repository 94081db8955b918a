/**
 * The egress policy as an admin setting (stored under `settings.egress`), and the process-wide
 * egress guard built from it (integrations/core/egress.ts). Until an admin saves a policy the
 * default comes from CONVEYOR_EGRESS_PRIVATE_NETWORKS.
 */
import type { Store } from "@/db/store";
import { createEgressGuard, setEgressGuard, type EgressPolicy, type ProtectedEndpoint } from "@/integrations/core/egress";
import { EgressPolicySchema, type EgressPolicyInput, type EgressPolicyView } from "../../contracts/settings";
import type { AppDeps } from "../../deps";
import { assertCan, assertOrganizationWide, type Actor } from "../../auth/permissions";
import { AppError } from "../../errors";
import { zodProblems } from "../../rest/problem";
import { recordAudit } from "../audit/record-audit";

const KEY = "egress";
export const ALWAYS_REFUSED = [
  "cloud metadata endpoints (169.254.169.254, fd00:ec2::254, 168.63.129.16, 100.100.100.200, metadata.google.internal, …)",
  "link-local, unspecified, multicast, broadcast and reserved addresses, including IPv4 addresses inside IPv6 (mapped, compatible, NAT64, 6to4)",
  "this service's own port on this machine, and the PostgreSQL and Redis servers it uses",
];

let defaultPrivate = true;
let cache: { at: number; policy: EgressPolicy } | null = null;
const CACHE_MS = 2000;

function policyOf(row: { value: unknown } | undefined): EgressPolicy {
  const parsed = row ? EgressPolicySchema.safeParse(row.value) : null;
  return parsed?.success ? parsed.data : { allowPrivateNetworks: defaultPrivate, allowList: [] };
}

export async function currentEgressPolicy(store: Store): Promise<EgressPolicy> {
  return policyOf(await store.settings.get(KEY));
}

export async function getEgressPolicy(deps: AppDeps, actor: Actor): Promise<EgressPolicyView> {
  assertCan(actor, "settings.manage");
  assertOrganizationWide(actor, "read installation settings");
  const row = await deps.store.settings.get(KEY);
  return {
    ...policyOf(row),
    source: row ? "saved" : "default",
    alwaysRefused: ALWAYS_REFUSED,
    updatedAt: row?.updatedAt ?? null,
    updatedBy: row?.updatedBy ?? null,
  };
}

export async function updateEgressPolicy(deps: AppDeps, actor: Actor, input: EgressPolicyInput): Promise<EgressPolicyView> {
  assertCan(actor, "settings.manage");
  assertOrganizationWide(actor, "change installation settings");
  const parsed = EgressPolicySchema.safeParse(input);
  if (!parsed.success) throw new AppError("validation_failed", "The egress policy is not valid; see `errors`.", zodProblems(parsed.error));
  const at = deps.now().toISOString();
  await deps.store.tx(async (s) => {
    await s.settings.put({ key: KEY, value: parsed.data, updatedAt: at, updatedBy: actor.label });
    if (actor.organizationId)
      await recordAudit(s, { organizationId: actor.organizationId, actor: actor.label, action: "settings.egress", data: { ...parsed.data } });
  });
  cache = null;
  return getEgressPolicy(deps, actor);
}

/** Installs the process-wide guard: the stored policy (cached 2 s; a save in this process applies at once) and the service's own endpoints. */
export function installEgressGuard(deps: Pick<AppDeps, "store">, opts: { endpoints: ProtectedEndpoint[]; allowPrivateByDefault: boolean }): void {
  defaultPrivate = opts.allowPrivateByDefault;
  cache = null;
  setEgressGuard(
    createEgressGuard({
      policy: async () => {
        if (cache && Date.now() - cache.at < CACHE_MS) return cache.policy;
        cache = { at: Date.now(), policy: await currentEgressPolicy(deps.store) };
        return cache.policy;
      },
      protectedEndpoints: () => opts.endpoints,
    }),
  );
}
