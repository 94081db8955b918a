import { z } from "zod";
import { ui } from "../../core/ui-meta";

/** A silence picked from Alertmanager's list, or any ID / expression. */
export const SilenceField = z
  .string()
  .trim()
  .min(1, "Pick a silence or enter its ID")
  .meta(ui({ title: "Silence", widget: "resource", resource: { type: "silence", allowCustom: true }, expression: true }));
