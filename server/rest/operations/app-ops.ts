/** Operations on automations ("apps"), versions, runs, connections and the catalog. */
import { z } from "zod";
import { pageOf, PaginationQuerySchema } from "@/server/contracts/common";
import { AutomationDocumentBodySchema, AutomationPatchSchema, AutomationSchema, AutomationVersionSchema } from "@/server/contracts/automations";
import {
  RecentFailuresQuerySchema,
  RecentFailuresSchema,
  RetryRunSchema,
  RunDetailSchema,
  RunSchema,
  RunStatusSchema,
  StartRunSchema,
  TestRunBodySchema,
} from "@/server/contracts/runs";
import { CatalogSchema, ConnectionSchema, CreateConnectionBodySchema, UpdateConnectionBodySchema, VerifyResultSchema } from "@/server/contracts/connections";
import { defineOperation as op } from "../operation";
import { AppParams, ConnectionParams, FactoryParams, RunParams, VersionParams } from "./params";

const App = AutomationSchema.extend({
  setupProblems: z
    .array(z.object({ nodeId: z.string(), message: z.string() }))
    .optional()
    .meta({ description: "Trigger set-up problems after a save (e.g. an upstream webhook registration that failed); the save itself succeeded." }),
}).meta({ id: "App", description: "An automation: a versioned graph of triggers and components." });
const AppDocument = AutomationDocumentBodySchema.meta({
  id: "AppDocument",
  description: "The automation document (what the editor saves and export/import round-trips).",
  example: {
    name: "Silence disk alerts",
    enabled: false,
    graph: { nodes: [{ id: "n1", name: "start", key: "core.manual", config: {} }], edges: [] },
  },
});
const Version = AutomationVersionSchema.meta({ id: "AppVersion" });
const Run = RunSchema.meta({ id: "Run" });
const RunDetail = RunDetailSchema.meta({ id: "RunDetail" });
const StartRun = StartRunSchema.meta({ id: "StartRunBody", example: { payload: { alertname: "DiskFull" } } });

export const ListAppsQuerySchema = PaginationQuerySchema.extend({
  enabled: z
    .enum(["true", "false"])
    .transform((v) => v === "true")
    .optional()
    .meta({ description: "Only enabled (true) or disabled (false) automations." }),
  search: z.string().max(200).optional().meta({ description: "Case-insensitive match on the name." }),
});
export const ListRunsQuerySchema = PaginationQuerySchema.extend({
  status: RunStatusSchema.optional(),
  mode: z.enum(["production", "test"]).optional().meta({ description: "Only production runs, or only test runs (started from the editor or `test-runs`)." }),
});

export const listApps = op({
  id: "listApps",
  method: "GET",
  path: "/factories/{factoryId}/apps",
  tag: "Apps",
  summary: "List automations",
  params: FactoryParams,
  query: ListAppsQuerySchema,
  response: pageOf(App, "AppPage"),
});
export const createApp = op({
  id: "createApp",
  method: "POST",
  path: "/factories/{factoryId}/apps",
  tag: "Apps",
  summary: "Create an automation",
  description:
    "Validates the whole document and reports every problem at once, each with `path`, `nodeId` and `severity`. " +
    "A disabled automation (`enabled` false or omitted) is saved as a **draft** even with problems: the response lists them in `problems`. " +
    "An enabled one must have no problem of severity `error`, else 422 with the list in `errors` and nothing saved. " +
    "A malformed document (wrong shape, duplicate node ids, unknown error handler) is always a 422.",
  params: FactoryParams,
  body: AppDocument,
  response: App,
  status: 201,
  idempotent: true,
  errors: [422],
  location: "/factories/{factoryId}/apps/{id}",
});
export const getApp = op({
  id: "getApp",
  method: "GET",
  path: "/factories/{factoryId}/apps/{appId}",
  tag: "Apps",
  summary: "Get an automation",
  description: "With its current version and trigger URLs. The `ETag` header is the version; send it as `If-Match` when replacing.",
  params: AppParams,
  response: App,
  etag: "returns",
});
export const replaceApp = op({
  id: "replaceApp",
  method: "PUT",
  path: "/factories/{factoryId}/apps/{appId}",
  tag: "Apps",
  summary: "Replace an automation",
  description:
    "Saves a new version from the whole document (same validation as create: a disabled automation saves as a draft with its `problems`; " +
    "an enabled one, or `enabled: true`, must have no errors, else 422 and the live version stays). " +
    "With `If-Match: <ETag>` the save is refused with 412 when someone saved in between.",
  params: AppParams,
  body: AppDocument,
  response: App,
  etag: "if-match",
  errors: [412, 422],
});
export const patchApp = op({
  id: "patchApp",
  method: "PATCH",
  path: "/factories/{factoryId}/apps/{appId}",
  tag: "Apps",
  summary: "Update automation settings",
  description:
    "Name, description, enabled, concurrency. Enabling re-checks the current version (against today's connections) and answers 422 with every problem when it has errors. " +
    "A new name or description saves a new version. With `If-Match: <ETag>` the change is refused with 412 when someone saved in between.",
  params: AppParams,
  body: AutomationPatchSchema.meta({ id: "AppPatch" }),
  response: App,
  etag: "if-match",
  errors: [412, 422],
});
export const deleteApp = op({
  id: "deleteApp",
  method: "DELETE",
  path: "/factories/{factoryId}/apps/{appId}",
  tag: "Apps",
  summary: "Delete an automation",
  description: "Refused with 409 while a line step names the automation.",
  params: AppParams,
  status: 204,
  errors: [409],
});
export const listVersions = op({
  id: "listVersions",
  method: "GET",
  path: "/factories/{factoryId}/apps/{appId}/versions",
  tag: "Apps",
  summary: "List versions",
  params: AppParams,
  query: PaginationQuerySchema,
  response: pageOf(Version, "AppVersionPage"),
});
export const getVersion = op({
  id: "getVersion",
  method: "GET",
  path: "/factories/{factoryId}/apps/{appId}/versions/{version}",
  tag: "Apps",
  summary: "Get a version",
  params: VersionParams,
  response: Version,
});

export const listRuns = op({
  id: "listRuns",
  method: "GET",
  path: "/factories/{factoryId}/apps/{appId}/runs",
  tag: "Runs",
  summary: "List runs",
  description: "Newest first, with an optional status filter.",
  params: AppParams,
  query: ListRunsQuerySchema,
  response: pageOf(Run, "RunPage"),
});
export const startRun = op({
  id: "startRun",
  method: "POST",
  path: "/factories/{factoryId}/apps/{appId}/runs",
  tag: "Runs",
  summary: "Start a run",
  description:
    "Starts the automation (202: the run is queued) from its manual trigger, or without one from its first trigger (`nodeId` picks another), " +
    "with `payload` as the trigger event's `data` (not checked against that trigger's event shape: an alert trigger started with `{}` runs with empty labels); `eventId` replays an earlier event instead. Send `Idempotency-Key` to make retries safe. A draft whose current version has errors answers 422 with them.",
  params: AppParams,
  body: StartRun,
  bodyOptional: true,
  response: Run,
  status: 202,
  idempotent: true,
  errors: [409, 422],
  location: "/factories/{factoryId}/apps/{appId}/runs/{id}",
});
export const getRun = op({
  id: "getRun",
  method: "GET",
  path: "/factories/{factoryId}/apps/{appId}/runs/{runId}",
  tag: "Runs",
  summary: "Get a run",
  description: "With each step's inputs (secrets masked), output, attempts and logs.",
  params: RunParams,
  response: RunDetail,
});
export const cancelRun = op({
  id: "cancelRun",
  method: "POST",
  path: "/factories/{factoryId}/apps/{appId}/runs/{runId}/cancel",
  tag: "Runs",
  summary: "Cancel a run",
  params: RunParams,
  response: Run,
  idempotent: true,
  errors: [409],
});
export const retryRun = op({
  id: "retryRun",
  method: "POST",
  path: "/factories/{factoryId}/apps/{appId}/runs/{runId}/retry",
  tag: "Runs",
  summary: "Retry a failed or cancelled run from its failed step",
  description:
    '`version: "original"` (default; also with no body): the same run continues on the version it started on; its failed and cancelled steps run again, succeeded steps keep their outputs; the response is that run. ' +
    "`version: \"current\"`: a new run on the automation's current saved version, `retryOf` this one: the succeeded steps whose node still exists with the same key are reused (steps with an `origin`), the failed step and everything after it run from the current graph; the response is the new run (when the current version is the run's own, the run continues as with `original`). " +
    "Either way it is another attempt of the same run in usage. 409 when the run is not failed or cancelled, is a test run, or was already retried as a new run (retry that one); 422 when the current version is a draft with errors.",
  params: RunParams,
  body: RetryRunSchema.meta({ id: "RetryRunBody", example: { version: "current" } }),
  bodyOptional: true,
  response: Run,
  status: 202,
  idempotent: true,
  errors: [409, 422],
  location: "/factories/{factoryId}/apps/{appId}/runs/{id}",
});
export const startTestRun = op({
  id: "startTestRun",
  method: "POST",
  path: "/factories/{factoryId}/apps/{appId}/test-runs",
  tag: "Runs",
  summary: "Test a node (run one step, or from a node on)",
  description:
    "Starts a test run of the current saved version at `nodeId`, with the trigger event and the outputs of the nodes before it taken from pinned data (`graph.nodes[].pinned`) or from an earlier run, so the node calls its upstream for real without the steps before it running again. " +
    'With `scope: "downstream"` the nodes after it run too (a node with pinned data emits it instead of calling its upstream). ' +
    'The run has `mode: "test"`: counted apart in usage (`testRuns`), it never advances a task nor starts an error handler. 422 when no earlier data covers the nodes before it, or when the steps it runs have errors.',
  params: AppParams,
  body: TestRunBodySchema.meta({ id: "TestRunBody", example: { nodeId: "n3", scope: "step" } }),
  response: RunSchema.extend({ dataFrom: z.string().describe("Where the earlier data came from, e.g. `run run_…` or `pinned data`.") }).meta({ id: "TestRun" }),
  status: 202,
  idempotent: true,
  errors: [422],
  location: "/factories/{factoryId}/apps/{appId}/runs/{id}",
});
export const getRecentFailures = op({
  id: "getRecentFailures",
  method: "GET",
  path: "/factories/{factoryId}/recent-failures",
  tag: "Runs",
  summary: "Count recently failed runs",
  description:
    "How many production runs of the workspace failed among those created in the last 24 hours (or since `since`): the editor's red badge on *Runs*, for dashboards and alerts. " +
    "Counted by creation time up to 100 (`more` says there were more than `failed`); test runs are not counted. " +
    "The usage report counts failed runs too, by the hour of their end and over longer windows.",
  params: FactoryParams,
  query: RecentFailuresQuerySchema,
  response: RecentFailuresSchema.meta({ id: "RecentFailures" }),
  errors: [422],
});

export const listConnections = op({
  id: "listConnections",
  method: "GET",
  path: "/factories/{factoryId}/connections",
  tag: "Connections",
  summary: "List connections",
  description: "Secret fields are never returned.",
  params: FactoryParams,
  query: PaginationQuerySchema,
  response: pageOf(ConnectionSchema, "ConnectionPage"),
});
export const createConnection = op({
  id: "createConnection",
  method: "POST",
  path: "/factories/{factoryId}/connections",
  tag: "Connections",
  summary: "Create a connection",
  params: FactoryParams,
  body: CreateConnectionBodySchema,
  response: ConnectionSchema,
  status: 201,
  idempotent: true,
  errors: [422],
  location: "/factories/{factoryId}/connections/{id}",
});
export const getConnection = op({
  id: "getConnection",
  method: "GET",
  path: "/factories/{factoryId}/connections/{connectionId}",
  tag: "Connections",
  summary: "Get a connection",
  description: "Secret fields are never returned; `secretsSet` names the ones that have a value.",
  params: ConnectionParams,
  response: ConnectionSchema,
});
export const updateConnection = op({
  id: "updateConnection",
  method: "PATCH",
  path: "/factories/{factoryId}/connections/{connectionId}",
  tag: "Connections",
  summary: "Update a connection",
  params: ConnectionParams,
  body: UpdateConnectionBodySchema,
  response: ConnectionSchema,
  errors: [422],
});
export const deleteConnection = op({
  id: "deleteConnection",
  method: "DELETE",
  path: "/factories/{factoryId}/connections/{connectionId}",
  tag: "Connections",
  summary: "Delete a connection",
  params: ConnectionParams,
  status: 204,
  errors: [409],
});
export const verifyConnection = op({
  id: "verifyConnection",
  method: "POST",
  path: "/factories/{factoryId}/connections/{connectionId}/verify",
  tag: "Connections",
  summary: "Verify a connection",
  description: "Calls the upstream with the stored settings and reports whether it answers.",
  params: ConnectionParams,
  response: VerifyResultSchema,
});

export const getCatalog = op({
  id: "getCatalog",
  method: "GET",
  path: "/catalog",
  tag: "Catalog",
  summary: "Integration catalog",
  description:
    "Every integration, trigger and component: key, title, description, config JSON Schema (as the editor's forms use), output event type and example.",
  response: CatalogSchema,
});

export const appOps = [
  listApps,
  createApp,
  getApp,
  replaceApp,
  patchApp,
  deleteApp,
  listVersions,
  getVersion,
  listRuns,
  startRun,
  getRun,
  cancelRun,
  retryRun,
  startTestRun,
  getRecentFailures,
  listConnections,
  createConnection,
  getConnection,
  updateConnection,
  deleteConnection,
  verifyConnection,
  getCatalog,
];
