/** Alertmanager webhook "version 4" notification: validation and mapping to `metrics.alert` events. */
import { DeliveryRejectedError } from "../../core/errors";
import type { AlertEvent } from "../schemas";

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const isStringMap = (v: unknown) => isObj(v) && Object.values(v).every((x) => typeof x === "string");

const TOP_REQUIRED: Array<[string, (v: unknown) => boolean]> = [
  ["receiver", (v) => typeof v === "string"],
  ["status", (v) => typeof v === "string"],
  ["groupKey", (v) => typeof v === "string"],
  ["alerts", Array.isArray],
];
const TOP_OPTIONAL_MAPS = ["groupLabels", "commonLabels", "commonAnnotations"];
const ALERT_REQUIRED: Array<[string, (v: unknown) => boolean]> = [
  ["status", (v) => v === "firing" || v === "resolved"],
  ["labels", isStringMap],
  ["startsAt", (v) => typeof v === "string"],
  ["fingerprint", (v) => typeof v === "string"],
];

export interface Notification {
  receiver: string;
  status: string;
  groupKey: string;
  groupLabels: Record<string, string>;
  commonLabels: Record<string, string>;
  commonAnnotations: Record<string, string>;
  externalURL: string;
  alerts: Obj[];
}

/** Checks the shape; throws 422 naming every missing or malformed field. */
export function parseNotification(body: unknown): Notification {
  if (!isObj(body)) throw new DeliveryRejectedError("Not an Alertmanager notification: the body must be a JSON object", 422);
  const problems: string[] = [];
  for (const [field, ok] of TOP_REQUIRED) if (!ok(body[field])) problems.push(field);
  for (const field of TOP_OPTIONAL_MAPS) if (body[field] !== undefined && !isStringMap(body[field])) problems.push(field);
  if (Array.isArray(body.alerts)) {
    body.alerts.forEach((alert, i) => {
      if (!isObj(alert)) return problems.push(`alerts[${i}]`);
      for (const [field, ok] of ALERT_REQUIRED) if (!ok(alert[field])) problems.push(`alerts[${i}].${field}`);
    });
  }
  if (problems.length) {
    throw new DeliveryRejectedError(`Not an Alertmanager notification: missing or invalid ${problems.join(", ")}`, 422, { fields: problems });
  }
  return {
    receiver: body.receiver as string,
    status: body.status as string,
    groupKey: body.groupKey as string,
    groupLabels: (body.groupLabels as Record<string, string>) ?? {},
    commonLabels: (body.commonLabels as Record<string, string>) ?? {},
    commonAnnotations: (body.commonAnnotations as Record<string, string>) ?? {},
    externalURL: typeof body.externalURL === "string" ? body.externalURL : "",
    alerts: body.alerts as Obj[],
  };
}

/** One event per alert, with the notification's group fields copied on. */
export function toAlertEvents(n: Notification): AlertEvent[] {
  return n.alerts.map((a) => ({
    status: a.status as AlertEvent["status"],
    labels: a.labels as Record<string, string>,
    annotations: isStringMap(a.annotations) ? (a.annotations as Record<string, string>) : {},
    startsAt: a.startsAt as string,
    endsAt: typeof a.endsAt === "string" ? a.endsAt : "0001-01-01T00:00:00Z",
    generatorURL: typeof a.generatorURL === "string" ? a.generatorURL : "",
    fingerprint: a.fingerprint as string,
    receiver: n.receiver,
    groupKey: n.groupKey,
    groupLabels: n.groupLabels,
    commonLabels: n.commonLabels,
    commonAnnotations: n.commonAnnotations,
    externalURL: n.externalURL,
  }));
}
