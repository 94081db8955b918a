/** Built-in blocks (`core.*`): manual/webhook/schedule triggers and filter/http/wait/remember/recall components. No connection. */
import { defineIntegration } from "../core/define";
import { filterComponent } from "./filter";
import { httpComponent } from "./http";
import { manualTrigger } from "./manual";
import { recallComponent } from "./recall";
import { rememberComponent } from "./remember";
import { scheduleTrigger } from "./schedule";
import { waitComponent } from "./wait";
import { webhookTrigger } from "./webhook";

export const core = defineIntegration({
  key: "core",
  title: "Built-in",
  description: "Manual, webhook and schedule triggers; filter, HTTP request, wait, remember and recall.",
  icon: "blocks",
  components: [filterComponent, httpComponent, waitComponent, rememberComponent, recallComponent],
  triggers: [manualTrigger, webhookTrigger, scheduleTrigger],
});
