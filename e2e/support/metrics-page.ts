/**
 * Helpers for the metrics e2e spec: the metrics connection made through the Connections page, and
 * small reads of the real Alertmanager's v2 API (alerts, silences) used to wait and to assert.
 */
import { expect, type Page } from "@playwright/test";

export interface MetricsConnectionInput {
  name: string;
  metricsBaseUrl: string;
  alertRouterBaseUrl: string;
  webhookSecret: string;
}

/**
 * New connection → Metrics → fill the form → "Save and test" (must pass against the real servers,
 * which closes the dialog). Ends on the Connections page with the connection listed as ready.
 */
export async function createMetricsConnection(page: Page, workspaceId: string, input: MetricsConnectionInput): Promise<void> {
  await page.goto(`/w/${workspaceId}/connections`);
  await page.getByTestId("new-connection").click();
  await page.getByTestId("pick-integration-metrics").click();
  const form = page.getByTestId("connection-form");
  await form.locator("#connection-name").fill(input.name);
  await form.getByTestId("field-metricsBaseUrl").locator("input").fill(input.metricsBaseUrl);
  await form.getByTestId("field-alertRouterBaseUrl").locator("input").fill(input.alertRouterBaseUrl);
  await form.getByTestId("field-webhookSecret").locator("input").fill(input.webhookSecret);
  await form.getByRole("button", { name: "Save and test" }).click();
  // Passing the test is what closes the dialog (a failure would stay, with its exact message).
  await expect(form).toBeHidden({ timeout: 15_000 });
  await expect(page.getByText(`Created “${input.name}” · test passed`)).toBeVisible();
  await expect(page.getByTestId(`connection-${input.name}`).getByTestId("connection-status")).toHaveText("ready");
}

export interface AmAlert {
  labels: Record<string, string>;
  status: { state: string; silencedBy: string[] };
}

export interface AmSilence {
  id: string;
  status: { state: string };
  matchers: Array<{ name: string; value: string; isRegex: boolean; isEqual?: boolean }>;
  createdBy: string;
  comment: string;
  startsAt: string;
  endsAt: string;
}

async function getJson<T>(url: string): Promise<T> {
  const res = await fetch(url, { signal: AbortSignal.timeout(5000) });
  if (!res.ok) throw new Error(`GET ${url} → ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** The alerts Alertmanager currently holds with this alertname. */
export function alertmanagerAlerts(alertmanagerUrl: string, alertname: string): Promise<AmAlert[]> {
  return getJson<AmAlert[]>(`${alertmanagerUrl}/api/v2/alerts?filter=${encodeURIComponent(`alertname="${alertname}"`)}`);
}

export function alertmanagerSilence(alertmanagerUrl: string, id: string): Promise<AmSilence> {
  return getJson<AmSilence>(`${alertmanagerUrl}/api/v2/silence/${encodeURIComponent(id)}`);
}
