/** Built-in blocks (`core.*`): manual/webhook/schedule triggers and filter/http/wait components. No connection. */
import { defineIntegration } from "../core/define";
import { filterComponent } from "./filter";
import { httpComponent } from "./http";
import { manualTrigger } from "./manual";
import { scheduleTrigger } from "./schedule";
import { waitComponent } from "./wait";
import { webhookTrigger } from "./webhook";

export const core = defineIntegration({
  key: "core",
  title: "Built-in",
  description: "Manual, webhook and schedule triggers; filter, HTTP request and wait.",
  icon: "blocks",
  components: [filterComponent, httpComponent, waitComponent],
  triggers: [manualTrigger, webhookTrigger, scheduleTrigger],
});
