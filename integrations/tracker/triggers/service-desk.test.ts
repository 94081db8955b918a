/**
 * One service-desk picker for Create Incident and On Incident: the desk's name is shown, its project key
 * stored, and that value works for both (the trigger matches events by project key, Create Incident calls
 * the service-desk API with it). Desks typed by id (or projectId:/projectKey:) work for both as well, and
 * a desk that does not exist is a problem on the field at save time.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { toJsonSchema } from "../../core/catalog";
import type { ConnectionHandle, IncomingDelivery, TriggerSetupContext } from "../../core/define";
import { createHttpClient } from "../../core/http";
import { createTestLogger } from "../../core/testing";
import { createIncident } from "../components/create-incident";
import { serviceDesk } from "../resources-jsm";
import { JSM_DEMO } from "../testing/fake-atlassian/jsm/wiring";
import { DEMO } from "../testing/fake-atlassian/seed";
import { contextFor, memoryRegistrations, startJsmOpsFake, startReceiver, type JsmOpsFake } from "../testing/jsm-ops-harness";
import { onIncident, onIncidentConfig } from "./on-incident";

let h: JsmOpsFake;
let rx: Awaited<ReturnType<typeof startReceiver>>;
const R = JSM_DEMO.requestTypes;
const T = JSM_DEMO.issueTypes;
beforeAll(async () => {
  h = await startJsmOpsFake();
  rx = await startReceiver();
});
afterAll(async () => {
  await h?.close();
  await rx?.close();
});
beforeEach(() => {
  rx.deliveries.length = 0;
});

type Cfg = ReturnType<typeof onIncidentConfig.parse>;
const jira = () => h.atlassian.state.site(DEMO.cloudId)!;
const http = createHttpClient();

/** A connection whose state persists like the engine's (setup remembers what it resolved there). */
function liveConnection(): ConnectionHandle {
  const state: Record<string, unknown> = { cloudId: DEMO.cloudId };
  return { ...h.connection(), state, saveState: async (patch) => void Object.assign(state, patch) };
}

function setupCtx(config: unknown, connection: ConnectionHandle, nodeId = "n_desk"): TriggerSetupContext<Cfg> {
  return {
    config: onIncidentConfig.parse(config),
    connection,
    http,
    log: createTestLogger(),
    intake: { id: "int_node", url: `${rx.url}/hooks/node`, token: "node" },
    sharedIntake: { id: "int_shared", url: `${rx.url}/hooks/shared`, token: "shared" },
    registrations: memoryRegistrations(nodeId),
    automationId: "aut_desk",
    nodeId,
  };
}

async function matched(s: TriggerSetupContext<Cfg>) {
  await h.atlassian.webhooks.settled();
  const ctx = { config: s.config, connection: s.connection, intake: s.sharedIntake!, now: () => new Date() };
  const out = [];
  for (const d of rx.deliveries as IncomingDelivery[]) out.push(...(await onIncident.match(d, ctx)));
  return out;
}

const hookFor = (reg: { upstreamId: string }) => [...jira().webhooks.values()].find((w) => reg.upstreamId.split(",").includes(String(w.id)))!;

describe("one service-desk picker for Create Incident and On Incident", () => {
  it("both fields use the same picker, which shows the desk's name and stores its project key", async () => {
    const resourceOf = (schema: Record<string, unknown>) => (schema.properties as Record<string, { resource?: { type: string } }>).serviceDesk!.resource!.type;
    expect(resourceOf(toJsonSchema(createIncident.config))).toBe("serviceDesks");
    expect(resourceOf(toJsonSchema(onIncident.config))).toBe("serviceDesks");
    const { options } = await serviceDesk({ connection: h.connection(), http, config: {} });
    expect(options).toEqual([{ value: "SD", label: "IT Service Desk (SD)", description: `Service desk ${JSM_DEMO.serviceDeskId}` }]);
  });

  it("the picked value works for both: the incident is created in the desk and the trigger fires for it", async () => {
    const picked = "SD";
    const conn = liveConnection();
    const s = setupCtx({ serviceDesk: picked, requestTypes: [R.incident], events: ["created"] }, conn);
    const { registration } = (await onIncident.setup!(s))!;
    expect(hookFor(registration!).jqlFilter).toBe('project IN ("SD")');

    const created = (await createIncident.run(
      contextFor(createIncident, h, { serviceDesk: picked, requestType: R.incident, summary: "via the key" }, conn),
    )) as { data: { key: string } };
    expect(created.data.key).toMatch(/^SD-\d+$/);
    expect((await matched(s)).map((e) => e.data.issue.key)).toEqual([created.data.key]);
    await onIncident.teardown!(s);
  });

  it("a desk typed by its id (as Create Incident used to store it) makes a trigger that fires", async () => {
    const conn = liveConnection();
    const s = setupCtx({ serviceDesk: JSM_DEMO.serviceDeskId, requestTypes: [R.incident], events: ["created"] }, conn);
    const { registration } = (await onIncident.setup!(s))!;
    expect(hookFor(registration!).jqlFilter).toBe('project IN ("SD")'); // by key, not the id
    expect(conn.state.jsmServiceDeskKeys).toEqual({ [JSM_DEMO.serviceDeskId]: "SD" });

    jira().createIssue(
      { projectId: JSM_DEMO.projectId, issueTypeId: T.incident, summary: "desk by id", description: null, reporterId: DEMO.users.mia, labels: [] },
      DEMO.users.mia,
    );
    expect((await matched(s)).map((e) => e.data.issue.fields.summary)).toEqual(["desk by id"]);
    await onIncident.teardown!(s);
  });

  it("projectKey:/projectId: forms and any case work for both", async () => {
    for (const value of ["projectId:10030", "projectKey:sd", "sd"]) {
      const conn = liveConnection();
      const out = (await createIncident.run(contextFor(createIncident, h, { serviceDesk: value, requestType: R.incident, summary: `via ${value}` }, conn))) as {
        data: { key: string };
      };
      expect(jira().issue(out.data.key)!.projectId).toBe(JSM_DEMO.projectId);
      const s = setupCtx({ serviceDesk: value, requestTypes: [R.incident], events: ["created"] }, conn, `n_${value}`);
      const { registration } = (await onIncident.setup!(s))!;
      expect(hookFor(registration!).jqlFilter).toBe('project IN ("SD")');
      await onIncident.teardown!(s);
    }
  });
});

describe("save-time check of the service desk", () => {
  const ctx = () => ({ connection: h.connection(), http, signal: new AbortController().signal });

  it("a desk that does not exist is a problem on the Service desk field of both units", async () => {
    expect(await createIncident.check!(createIncident.config.parse({ serviceDesk: "NOPE", requestType: R.incident, summary: "x" }), ctx())).toEqual([
      { path: "serviceDesk", message: expect.stringMatching(/Service desk "NOPE" does not exist/) },
    ]);
    expect(await onIncident.check!(onIncidentConfig.parse({ serviceDesk: "42", requestTypes: [R.incident] }), ctx())).toEqual([
      { path: "serviceDesk", message: expect.stringMatching(/Service desk "42" does not exist/) },
    ]);
    await expect(onIncident.setup!(setupCtx({ serviceDesk: "NOPE", requestTypes: [R.incident] }, liveConnection()))).rejects.toThrow(
      /Service desk "NOPE" does not exist/,
    );
  });

  it("request types are checked on their own field; a good configuration has no problems", async () => {
    expect(await createIncident.check!(createIncident.config.parse({ serviceDesk: "SD", requestType: "999", summary: "x" }), ctx())).toEqual([
      { path: "requestType", message: expect.stringMatching(/Request type 999 does not exist on service desk IT Service Desk \(SD\)/) },
    ]);
    expect(await createIncident.check!(createIncident.config.parse({ serviceDesk: "SD", requestType: R.getHelp, summary: "x" }), ctx())).toEqual([
      { path: "requestType", message: expect.stringMatching(/not incident management/) },
    ]);
    expect(
      await onIncident.check!(onIncidentConfig.parse({ serviceDesk: "SD", requestTypes: [R.incident, `${R.pir}:${T.postIncidentReview}`] }), ctx()),
    ).toEqual([{ path: "requestTypes.1", message: expect.stringMatching(/not incident management/) }]);
    expect(await createIncident.check!(createIncident.config.parse({ serviceDesk: "SD", requestType: R.incident, summary: "x" }), ctx())).toEqual([]);
    expect(await onIncident.check!(onIncidentConfig.parse({ serviceDesk: JSM_DEMO.serviceDeskId, requestTypes: [R.incident] }), ctx())).toEqual([]);
  });

  it("expression values are left to run time", async () => {
    expect(
      await createIncident.check!(createIncident.config.parse({ serviceDesk: "{{ $trigger.data.desk }}", requestType: R.incident, summary: "x" }), ctx()),
    ).toEqual([]);
  });
});
