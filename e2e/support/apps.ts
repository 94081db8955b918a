/** Automations the specs start from, created through the REST API as a script would. */
import { expect, type APIRequestContext } from "@playwright/test";

export interface AppBody {
  name: string;
  enabled?: boolean;
  graph: { nodes: Array<Record<string, unknown>>; edges: Array<Record<string, unknown>> };
  [key: string]: unknown;
}

/** POST …/apps; fails the spec with the server's answer unless it is 201; returns the created automation. */
export async function createApp(api: APIRequestContext, workspaceId: string, data: AppBody) {
  const created = await api.post(`/api/v1/factories/${workspaceId}/apps`, { data });
  expect(created.status(), await created.text()).toBe(201);
  return created.json();
}
