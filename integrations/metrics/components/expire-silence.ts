import { z } from "zod";
import { defineComponent } from "../../core/define";
import { AlertmanagerClient } from "../alertmanager-client";
import { requireConnection } from "../connection";
import { ExpiredSilenceSchema } from "../schemas";
import { SilenceField } from "./silence-field";

export const expireSilence = defineComponent({
  key: "metrics.expireSilence",
  title: "Expire Silence",
  description: "Ends a silence now; matching alerts notify again.",
  docs: "DELETEs `/api/v2/silence/{silenceID}` on the alert router (an already expired silence stays expired), then reads its state back. An unknown ID fails without retry.",
  config: z.object({ silence: SilenceField }),
  outputType: "metrics.silence.expired",
  output: ExpiredSilenceSchema,
  example: { silenceID: "996cc6d7-5949-490e-bc87-a68b57ff9665", status: "expired" },
  async run(ctx) {
    const am = new AlertmanagerClient(ctx.http, requireConnection(ctx.connection));
    await am.expireSilence(ctx.config.silence);
    const after = await am.getSilence(ctx.config.silence);
    return ctx.emit({ silenceID: after.id, status: after.status?.state ?? "expired" });
  },
});
