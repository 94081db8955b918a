import { createTRPCRouter, protectedProcedure } from "../trpc";
import { EgressPolicySchema } from "../../contracts/settings";
import { getEgressPolicy, updateEgressPolicy } from "../../services/settings/egress-policy";

export const settingsRouter = createTRPCRouter({
  /** The outbound network (egress) policy, with what no policy can allow. */
  egress: protectedProcedure.query(({ ctx }) => getEgressPolicy(ctx.deps, ctx.actor)),
  updateEgress: protectedProcedure.input(EgressPolicySchema).mutation(({ ctx, input }) => updateEgressPolicy(ctx.deps, ctx.actor, input)),
});
