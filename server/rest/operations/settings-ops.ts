/** Installation settings: the outbound network (egress) policy. */
import { EgressPolicySchema, EgressPolicyViewSchema } from "@/server/contracts/settings";
import { defineOperation as op } from "../operation";

export const getEgressPolicy = op({
  id: "getEgressPolicy",
  method: "GET",
  path: "/settings/egress",
  tag: "Settings",
  summary: "Get the egress policy",
  description: "Which addresses automations, connection checks and OAuth may call. Keys limited to some workspaces get 403.",
  response: EgressPolicyViewSchema,
});
export const updateEgressPolicy = op({
  id: "updateEgressPolicy",
  method: "PUT",
  path: "/settings/egress",
  tag: "Settings",
  summary: "Replace the egress policy",
  description: "Metadata endpoints, link-local addresses and this service's own ports stay refused whatever the policy says.",
  body: EgressPolicySchema,
  response: EgressPolicyViewSchema,
  errors: [422],
});

export const settingsOps = [getEgressPolicy, updateEgressPolicy];
