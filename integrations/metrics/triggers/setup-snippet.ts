/** The ready-to-paste `alertmanager.yml` receiver + route for an On Alert trigger's webhook URL. */
import type { OnAlertConfig } from "./on-alert";

export const SECRET_PLACEHOLDER = "<paste the connection's Webhook Secret>";

const yamlString = (s: string) => JSON.stringify(s); // JSON strings are valid double-quoted YAML scalars
const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

export function receiverName(url: string): string {
  const token = url.replace(/\/+$/, "").split("/").pop() ?? "";
  return `conveyor-${token.replace(/[^A-Za-z0-9_-]/g, "").slice(0, 12) || "webhook"}`;
}

export function alertmanagerSnippet(args: {
  url: string;
  config: OnAlertConfig;
  hasSecret: boolean;
  /** Only tests pass the real secret; the UI shows a placeholder because secrets are write-only. */
  secret?: string;
  alertRouterUrl?: string;
}): { title: string; language?: string; text: string }[] {
  const { url, config, hasSecret } = args;
  const name = receiverName(url);
  const lines: string[] = [
    "# Add to alertmanager.yml: the route under your existing `route:` (its `routes:` list),",
    "# the receiver under `receivers:`.",
    "route:",
    "  routes:",
    `    - receiver: ${name}`,
  ];
  if (config.alertNames.length) {
    const re = config.alertNames.map(escapeRegex).join("|");
    lines.push("      matchers:", `        - ${yamlString(`alertname=~"${re.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`)}`);
  }
  lines.push(
    "      continue: true",
    "receivers:",
    `  - name: ${name}`,
    "    webhook_configs:",
    `      - url: ${yamlString(url)}`,
    `        send_resolved: ${config.statuses.includes("resolved")}`,
  );
  if (hasSecret) {
    lines.push(
      "        http_config:",
      "          authorization:",
      "            type: Bearer",
      `            credentials: ${yamlString(args.secret ?? SECRET_PLACEHOLDER)}`,
    );
  }
  const am = (args.alertRouterUrl ?? "http://alertmanager:9093").replace(/\/+$/, "");
  return [
    { title: "alertmanager.yml receiver and route", language: "yaml", text: lines.join("\n") + "\n" },
    {
      title: "Then reload Alertmanager",
      language: "bash",
      text: `amtool check-config alertmanager.yml && curl -X POST ${am}/-/reload`,
    },
  ];
}
