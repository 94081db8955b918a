/** Installation settings an admin changes: the outbound network (egress) policy. */
import { z } from "zod";
import { isValidAllowEntry } from "@/integrations/core/egress";

export const EgressPolicySchema = z
  .strictObject({
    allowPrivateNetworks: z.boolean().meta({
      description:
        "Allow loopback, RFC 1918, carrier-grade NAT and IPv6 unique-local addresses (self-hosted Prometheus lives there). Metadata, link-local and this service's own ports are refused either way.",
    }),
    allowList: z
      .array(z.string().trim().min(1).max(64).refine(isValidAllowEntry, "An IP address or CIDR, e.g. 10.0.5.0/24"))
      .max(100)
      .default([])
      .meta({ description: "Addresses or CIDRs allowed even when private networks are refused.", example: ["10.0.5.0/24"] }),
  })
  .meta({ id: "EgressPolicy" });
export type EgressPolicyInput = z.input<typeof EgressPolicySchema>;

export const EgressPolicyViewSchema = EgressPolicySchema.extend({
  source: z.enum(["default", "saved"]).meta({ description: "`default`: from CONVEYOR_EGRESS_PRIVATE_NETWORKS, nothing saved yet." }),
  alwaysRefused: z.array(z.string()).meta({ description: "What no policy can allow." }),
  updatedAt: z.string().nullable(),
  updatedBy: z.string().nullable(),
}).meta({ id: "EgressPolicyView" });
export type EgressPolicyView = z.infer<typeof EgressPolicyViewSchema>;
