import { z } from "zod";
import { defineComponent } from "../../core/define";
import { AlertmanagerClient } from "../alertmanager-client";
import { requireConnection } from "../connection";
import { SilenceSchema, silenceExample, toSilence } from "../schemas";
import { SilenceField } from "./silence-field";

export const getSilence = defineComponent({
  key: "metrics.getSilence",
  title: "Get Silence",
  description: "Reads a silence and its state (active, pending, expired) from Alertmanager.",
  docs: "GETs `/api/v2/silence/{silenceID}` on the alert router. An unknown ID fails without retry.",
  config: z.object({ silence: SilenceField }),
  outputType: "metrics.silence",
  output: SilenceSchema,
  example: silenceExample,
  async run(ctx) {
    const am = new AlertmanagerClient(ctx.http, requireConnection(ctx.connection));
    return ctx.emit(toSilence(await am.getSilence(ctx.config.silence)));
  },
});
