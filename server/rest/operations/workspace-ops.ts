/** Operations on workspaces and their lines, tasks, intakes and usage. */
import { pageOf, PaginationQuerySchema } from "@/server/contracts/common";
import { CreateFactoryBodySchema, FactorySchema, UpdateFactoryBodySchema } from "@/server/contracts/factories";
import { CreateLineBodySchema, LineSchema, UpdateLineBodySchema } from "@/server/contracts/lines";
import {
  ActivityEntrySchema,
  CommentBodySchema,
  CreateOrderBodySchema,
  ListActivityQuerySchema,
  ListOrdersQuerySchema,
  OrderSchema,
  PatchOrderBodySchema,
  TransitionBodySchema,
} from "@/server/contracts/orders";
import { CreatedIntakeSchema, CreateIntakeBodySchema, IntakeSchema, UpdateIntakeBodySchema } from "@/server/contracts/intakes";
import { UsageQuerySchema, UsageReportSchema } from "@/server/contracts/usage";
import { defineOperation as op } from "../operation";
import { FactoryParams, IntakeParams, LineParams, OrderParams } from "./params";

export const listFactories = op({
  id: "listFactories",
  method: "GET",
  path: "/factories",
  tag: "Factories",
  summary: "List workspaces",
  description: "Workspaces (factories) available to this key: all of the organization's, or the key's list.",
  query: PaginationQuerySchema,
  response: pageOf(FactorySchema, "FactoryPage"),
});
export const createFactory = op({
  id: "createFactory",
  method: "POST",
  path: "/factories",
  tag: "Factories",
  summary: "Create a workspace",
  description: "Creates a workspace with a `default` line.",
  body: CreateFactoryBodySchema,
  response: FactorySchema,
  status: 201,
  idempotent: true,
  location: "/factories/{id}",
});
export const getFactory = op({
  id: "getFactory",
  method: "GET",
  path: "/factories/{factoryId}",
  tag: "Factories",
  summary: "Get a workspace",
  params: FactoryParams,
  response: FactorySchema,
});
export const updateFactory = op({
  id: "updateFactory",
  method: "PATCH",
  path: "/factories/{factoryId}",
  tag: "Factories",
  summary: "Rename a workspace",
  params: FactoryParams,
  body: UpdateFactoryBodySchema,
  response: FactorySchema,
});
export const deleteFactory = op({
  id: "deleteFactory",
  method: "DELETE",
  path: "/factories/{factoryId}",
  tag: "Factories",
  summary: "Delete a workspace",
  description: "Deletes the workspace and everything in it.",
  params: FactoryParams,
  status: 204,
});

export const listLines = op({
  id: "listLines",
  method: "GET",
  path: "/factories/{factoryId}/lines",
  tag: "Lines",
  summary: "List lines",
  params: FactoryParams,
  query: PaginationQuerySchema,
  response: pageOf(LineSchema, "LinePage"),
});
export const createLine = op({
  id: "createLine",
  method: "POST",
  path: "/factories/{factoryId}/lines",
  tag: "Lines",
  summary: "Create a line",
  description: "Each step names an automation of this workspace.",
  params: FactoryParams,
  body: CreateLineBodySchema,
  response: LineSchema,
  status: 201,
  idempotent: true,
  location: "/factories/{factoryId}/lines/{id}",
});
export const getLine = op({
  id: "getLine",
  method: "GET",
  path: "/factories/{factoryId}/lines/{lineId}",
  tag: "Lines",
  summary: "Get a line",
  params: LineParams,
  response: LineSchema,
});
export const updateLine = op({
  id: "updateLine",
  method: "PATCH",
  path: "/factories/{factoryId}/lines/{lineId}",
  tag: "Lines",
  summary: "Update a line",
  description: "Change the name and/or replace the ordered steps.",
  params: LineParams,
  body: UpdateLineBodySchema,
  response: LineSchema,
});
export const deleteLine = op({
  id: "deleteLine",
  method: "DELETE",
  path: "/factories/{factoryId}/lines/{lineId}",
  tag: "Lines",
  summary: "Delete a line",
  description: "Refused with 409 while draft or open tasks are on the line; closed tasks are deleted with it.",
  params: LineParams,
  status: 204,
  errors: [409],
});

export const listOrders = op({
  id: "listOrders",
  method: "GET",
  path: "/factories/{factoryId}/orders",
  tag: "Orders",
  summary: "List tasks",
  description: "Newest first. Filters: line, status, created range.",
  params: FactoryParams,
  query: ListOrdersQuerySchema,
  response: pageOf(OrderSchema, "OrderPage"),
});
export const createOrder = op({
  id: "createOrder",
  method: "POST",
  path: "/factories/{factoryId}/orders",
  tag: "Orders",
  summary: "Create a task",
  description: 'Creates a draft task, or an open one (`status: "open"`) whose first step starts at once. Send `Idempotency-Key` to make retries safe.',
  params: FactoryParams,
  body: CreateOrderBodySchema,
  response: OrderSchema,
  status: 201,
  idempotent: true,
  location: "/factories/{factoryId}/orders/{id}",
});
export const getOrder = op({
  id: "getOrder",
  method: "GET",
  path: "/factories/{factoryId}/orders/{orderId}",
  tag: "Orders",
  summary: "Get a task",
  params: OrderParams,
  response: OrderSchema,
});
export const patchOrder = op({
  id: "patchOrder",
  method: "PATCH",
  path: "/factories/{factoryId}/orders/{orderId}",
  tag: "Orders",
  summary: "Edit a task",
  description: "Title, description and data, while the task is draft or open (409 once closed).",
  params: OrderParams,
  body: PatchOrderBodySchema,
  response: OrderSchema,
  errors: [409],
});
export const transitionOrder = op({
  id: "transitionOrder",
  method: "POST",
  path: "/factories/{factoryId}/orders/{orderId}/transitions",
  tag: "Orders",
  summary: "Move a task",
  description:
    "`open` a draft (starts step 1), `close` with outcome `completed` or `rejected`, or `retry` a failed task from its failed step. 409 when the task's state does not allow it.",
  params: OrderParams,
  body: TransitionBodySchema,
  response: OrderSchema,
  idempotent: true,
  errors: [409],
});
export const commentOrder = op({
  id: "commentOrder",
  method: "POST",
  path: "/factories/{factoryId}/orders/{orderId}/comments",
  tag: "Orders",
  summary: "Comment on a task",
  params: OrderParams,
  body: CommentBodySchema,
  response: ActivityEntrySchema,
  status: 201,
  idempotent: true,
});
export const listOrderActivity = op({
  id: "listOrderActivity",
  method: "GET",
  path: "/factories/{factoryId}/orders/{orderId}/activity",
  tag: "Orders",
  summary: "Task timeline",
  description:
    "Oldest first: created, opened, step_started / step_finished (with run id and status), comments, closed. New entries append at the end: page through with `cursor`, and follow a task by polling with `after` set to the `id` of the last entry seen (the last page's `nextCursor` is null).",
  params: OrderParams,
  query: ListActivityQuerySchema,
  response: pageOf(ActivityEntrySchema, "ActivityPage"),
});

export const listIntakes = op({
  id: "listIntakes",
  method: "GET",
  path: "/factories/{factoryId}/intakes",
  tag: "Intakes",
  summary: "List intakes",
  description: "Trigger intakes (URL, last event, counts, upstream registration) and webhook intakes that create tasks.",
  params: FactoryParams,
  query: PaginationQuerySchema,
  response: pageOf(IntakeSchema, "IntakePage"),
});
export const createIntake = op({
  id: "createIntake",
  method: "POST",
  path: "/factories/{factoryId}/intakes",
  tag: "Intakes",
  summary: "Create a webhook intake",
  description:
    'Returns the URL and the secret (shown once). A JSON POST to the URL signed with the secret (`X-Conveyor-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`, or, unless `requireTimestampedSignature`, `Authorization: Bearer <secret>` or a body-only `sha256=` signature) creates a task on the line: `title`, `description` and `data` are taken from the body when present. ' +
    "Since the secret is shown once it is never stored for a replay, so this POST takes no `Idempotency-Key` (422): give a `key` instead, and a retry after a lost answer is a 422 naming it (then list the intakes).",
  params: FactoryParams,
  body: CreateIntakeBodySchema,
  response: CreatedIntakeSchema,
  status: 201,
});
export const updateIntake = op({
  id: "updateIntake",
  method: "PATCH",
  path: "/factories/{factoryId}/intakes/{intakeId}",
  tag: "Intakes",
  summary: "Change a webhook intake's signature settings",
  description:
    "Whether deliveries must carry a timestamped signature (`requireTimestampedSignature`) and its time tolerance. Applies to the next delivery, in every process. Trigger intakes take these settings from their `core.webhook` node (409).",
  params: IntakeParams,
  body: UpdateIntakeBodySchema,
  response: IntakeSchema,
  errors: [409],
});
export const deleteIntake = op({
  id: "deleteIntake",
  method: "DELETE",
  path: "/factories/{factoryId}/intakes/{intakeId}",
  tag: "Intakes",
  summary: "Delete a webhook intake",
  description: "Trigger intakes follow their automation and are refused with 409.",
  params: IntakeParams,
  status: 204,
  errors: [409],
});

export const getUsage = op({
  id: "getUsage",
  method: "GET",
  path: "/factories/{factoryId}/usage",
  tag: "Usage",
  summary: "Usage report",
  description: "Runs and steps by status, run time, events received, tasks created/closed and API calls over a window of up to 90 days.",
  params: FactoryParams,
  query: UsageQuerySchema,
  response: UsageReportSchema,
  errors: [422],
});
export const workspaceOps = [
  listFactories,
  createFactory,
  getFactory,
  updateFactory,
  deleteFactory,
  listLines,
  createLine,
  getLine,
  updateLine,
  deleteLine,
  listOrders,
  createOrder,
  getOrder,
  patchOrder,
  transitionOrder,
  commentOrder,
  listOrderActivity,
  listIntakes,
  createIntake,
  updateIntake,
  deleteIntake,
  getUsage,
];
