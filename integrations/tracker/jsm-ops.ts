/** The tracker integration's service desk and ops units: service desk (approvals, incidents) and operations (alerts, heartbeats). */
import type { AnyComponent, AnyTrigger, ResourceLoader } from "../core/define";
import { approveWorkflow } from "./components/approve-workflow";
import { createAlert } from "./components/create-alert";
import { createHeartbeat } from "./components/create-heartbeat";
import { createIncident } from "./components/create-incident";
import { deleteAlert } from "./components/delete-alert";
import { deleteHeartbeat } from "./components/delete-heartbeat";
import { deleteIncident } from "./components/delete-incident";
import { getAlert } from "./components/get-alert";
import { getIncident } from "./components/get-incident";
import { pingHeartbeat } from "./components/ping-heartbeat";
import { updateAlert } from "./components/update-alert";
import { updateHeartbeat } from "./components/update-heartbeat";
import { jsmResources } from "./resources-jsm";
import { opsResources } from "./resources-ops";
import { onAlert } from "./triggers/on-alert";
import { onIncident } from "./triggers/on-incident";

export const jsmOpsComponents: AnyComponent[] = [
  approveWorkflow,
  createIncident,
  getIncident,
  deleteIncident,
  createAlert,
  getAlert,
  updateAlert,
  deleteAlert,
  createHeartbeat,
  updateHeartbeat,
  deleteHeartbeat,
  pingHeartbeat,
];

export const jsmOpsTriggers: AnyTrigger[] = [onIncident, onAlert];

export const jsmOpsResources: Record<string, ResourceLoader> = { ...jsmResources, ...opsResources };
