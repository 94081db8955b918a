import { z } from "zod";
import { defineComponent } from "../../core/define";
import { NonRetryableError } from "../../core/errors";
import { ui } from "../../core/ui-meta";
import { isIncidentPractice, isNotFound, jsmClient, siteProblems, type RequestTypeField, type ServiceDesk } from "../jsm-client";
import { deskMissing, findServiceDesk, requireServiceDesk } from "../lookups";
import { hasExpression } from "../../core/expressions";
import { serviceDeskField } from "../schemas";
import { textToAdf } from "../adf";
import { createLabel, createLabelled, findCreated, isRetry } from "./create-once";

const ESTIMATE = /^\s*(\d+(\.\d+)?\s*[wdhm]\s*)+$/i;

export const createIncidentConfig = z.object({
  serviceDesk: serviceDeskField(),
  requestType: z
    .string()
    .min(1)
    .meta(
      ui({
        title: "Request type",
        description: "Incident-management request types of the service desk",
        widget: "resource",
        resource: { type: "incidentRequestTypes", dependsOn: ["serviceDesk"] },
        order: 2,
      }),
    ),
  summary: z
    .string()
    .max(255)
    .optional()
    .meta(ui({ title: "Summary", description: "Required unless given in Additional fields", expression: true, order: 3 })),
  description: z
    .string()
    .optional()
    .meta(ui({ title: "Description", description: "Plain text, stored as a rich-text document", widget: "textarea", expression: true, order: 4 })),
  dueDate: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, "Use the site date format YYYY-MM-DD")
    .optional()
    .meta(ui({ title: "Due date", placeholder: "YYYY-MM-DD", expression: true, order: 5 })),
  priority: z
    .string()
    .optional()
    .meta(
      ui({
        title: "Priority",
        description: "Priority name",
        widget: "resource",
        resource: { type: "priorities", allowCustom: true },
        expression: true,
        order: 6,
      }),
    ),
  impact: z
    .string()
    .optional()
    .meta(ui({ title: "Impact", expression: true, order: 7 })),
  urgency: z
    .string()
    .optional()
    .meta(ui({ title: "Urgency", expression: true, order: 8 })),
  originalEstimate: z
    .string()
    .regex(ESTIMATE, "Use forms like 2h, 1d, 1w 2d, 30m")
    .optional()
    .meta(ui({ title: "Original estimate", placeholder: "2h", expression: true, order: 9 })),
  customFields: z
    .array(
      z.object({
        fieldId: z
          .string()
          .min(1)
          .meta(ui({ title: "Field ID", placeholder: "customfield_10050" })),
        value: z.string().meta(ui({ title: "Value", description: "JSON (object, array, number) or a plain string", expression: true })),
      }),
    )
    .default([])
    .meta(ui({ title: "Custom fields", order: 10 })),
  additionalFields: z
    .record(z.string(), z.unknown())
    .optional()
    .meta(ui({ title: "Additional fields", description: "JSON object merged into the fields map", widget: "json", expression: true, order: 11 })),
  update: z
    .record(z.string(), z.unknown())
    .optional()
    .meta(ui({ title: "Update", description: "JSON object sent as the issue's update property", widget: "json", expression: true, order: 12 })),
  alertIds: z
    .array(z.string().min(1))
    .default([])
    .meta(ui({ title: "Alert IDs", order: 13 })),
});
type Config = z.output<typeof createIncidentConfig>;

const SUMMARY_MISSING = "Summary is required (or give `summary` in Additional fields).";
const hasSummary = (c: Pick<Config, "summary" | "additionalFields">) =>
  Boolean(c.summary?.trim()) || (typeof c.additionalFields?.summary === "string" && c.additionalFields.summary.trim() !== "");

function parseValue(v: string): unknown {
  const t = v.trim();
  if (/^[[{"]|^-?\d|^(true|false|null)$/.test(t)) {
    try {
      return JSON.parse(t);
    } catch {
      return v;
    }
  }
  return v;
}

export const requestTypeMissing = (id: string, desk: ServiceDesk) =>
  `Request type ${id} does not exist on service desk ${desk.projectName} (${desk.projectKey}).`;

function fieldNamed(fields: RequestTypeField[], re: RegExp, what: string, requestTypeName: string): RequestTypeField {
  const f = fields.find((x) => re.test(x.name));
  if (!f) throw new NonRetryableError(`Request type "${requestTypeName}" has no ${what} field on this site, so ${what} cannot be set.`);
  return f;
}

/** A select-style value: by the option's value/label when the field lists valid values. */
function optionValue(field: RequestTypeField, v: string) {
  const opts = field.validValues ?? [];
  if (!opts.length) return { value: v };
  const hit = opts.find((o) => o.value === v || o.label.toLowerCase() === v.toLowerCase());
  if (!hit) throw new NonRetryableError(`"${v}" is not a valid ${field.name}; choose one of: ${opts.map((o) => o.label).join(", ")}.`);
  return { id: hit.value };
}

export const createIncident = defineComponent({
  key: "tracker.createIncident",
  title: "Create Incident",
  description: "Creates an incident (an issue on an incident-management request type) in a service desk.",
  docs:
    "Field ids such as impact, urgency and linked alerts are site-specific; they are looked up from the request type's fields. " +
    "The incident carries the label `conveyor-<step id>` (added to any labels given in Additional fields or Update); when a " +
    "create's answer is lost (a timeout, a reset connection, a 5xx) the retry first searches for that label and emits the " +
    "incident it finds instead of creating a second one. The first attempt sends the create alone.",
  config: createIncidentConfig,
  outputType: "tracker.incident.created",
  output: z.object({ id: z.string(), key: z.string(), self: z.string() }),
  example: { id: "10042", key: "SD-42", self: "https://api.atlassian.com/ex/jira/1324a887-45db-1bf4-1e99-ef0ff456d421/rest/api/3/issue/10042" },
  validate(config, { connection }) {
    const issues: Array<{ path: string; message: string }> = [];
    if (!hasSummary(config)) issues.push({ path: "summary", message: SUMMARY_MISSING });
    return [...issues, ...siteProblems(connection)];
  },
  async check(config, { connection, http }) {
    if (hasExpression(config.serviceDesk)) return [];
    const jsm = jsmClient(connection, http);
    const desk = await findServiceDesk(jsm, connection, config.serviceDesk);
    if (!desk) return [{ path: "serviceDesk", message: deskMissing(config.serviceDesk) }];
    if (hasExpression(config.requestType)) return [];
    const rt = await jsm.getRequestType(desk.id, config.requestType).catch((e) => {
      if (isNotFound(e)) return undefined;
      throw e;
    });
    if (!rt) return [{ path: "requestType", message: requestTypeMissing(config.requestType, desk) }];
    if (rt.practice && !isIncidentPractice(rt.practice))
      return [{ path: "requestType", message: `Request type "${rt.name}" is in the "${rt.practice}" work category, not incident management.` }];
    return [];
  },
  async run(ctx) {
    const c = ctx.config;
    if (!hasSummary(c)) throw new NonRetryableError(SUMMARY_MISSING);
    const jsm = jsmClient(ctx.connection, ctx.http);
    // The desk by project key (what the picker stores) or id (older automations, typed values).
    const desk = await requireServiceDesk(jsm, ctx.connection, c.serviceDesk);
    const rt = await jsm.getRequestType(desk.id, c.requestType).catch((e) => {
      throw isNotFound(e) ? new NonRetryableError(requestTypeMissing(c.requestType, desk)) : e;
    });
    if (rt.practice && !isIncidentPractice(rt.practice)) {
      throw new NonRetryableError(
        `Request type "${rt.name}" is in the "${rt.practice}" work category, not incident management; choose an incident request type.`,
      );
    }

    const fields: Record<string, unknown> = { project: { id: desk.projectId }, issuetype: { id: rt.issueTypeId } };
    if (c.summary?.trim()) fields.summary = c.summary;
    if (c.description?.trim()) fields.description = textToAdf(c.description);
    if (c.dueDate) fields.duedate = c.dueDate;
    if (c.priority?.trim()) fields.priority = { name: c.priority.trim() };
    if (c.originalEstimate) fields.timetracking = { originalEstimate: c.originalEstimate.trim() };
    if (c.impact || c.urgency || c.alertIds.length) {
      const rtFields = await jsm.getRequestTypeFields(desk.id, c.requestType);
      if (c.impact) {
        const f = fieldNamed(rtFields, /^impact$/i, "Impact", rt.name);
        fields[f.fieldId] = optionValue(f, c.impact);
      }
      if (c.urgency) {
        const f = fieldNamed(rtFields, /^urgency$/i, "Urgency", rt.name);
        fields[f.fieldId] = optionValue(f, c.urgency);
      }
      if (c.alertIds.length) fields[fieldNamed(rtFields, /alert/i, "Alerts", rt.name).fieldId] = c.alertIds;
    }
    for (const cf of c.customFields) fields[cf.fieldId] = parseValue(cf.value);
    Object.assign(fields, c.additionalFields ?? {});

    // A retried attempt looks for the incident a lost answer may have created before creating one (create-once.ts).
    const label = createLabel(ctx.run);
    const earlier = isRetry(ctx.run) ? await findCreated(jsm.searchJql, label) : undefined;
    if (earlier) {
      ctx.log.info("found the incident an earlier attempt created", { key: earlier.key, label });
      return ctx.emit({ id: String(earlier.id), key: earlier.key, self: earlier.self });
    }
    const body = { fields, ...(c.update && Object.keys(c.update).length ? { update: c.update } : {}) };
    const created = await createLabelled(body, label, jsm.createIssue, ctx.log);
    ctx.log.info("incident created", { key: created.key, label });
    return ctx.emit({ id: String(created.id), key: created.key, self: created.self });
  },
});
