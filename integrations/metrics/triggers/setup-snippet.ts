/** The ready-to-paste `alertmanager.yml` receiver + route for an On Alert trigger's webhook URL. */
import type { OnAlertConfig } from "./on-alert";

export const SECRET_PLACEHOLDER = "<paste the connection's Webhook Secret>";
/** The commented-out last route that keeps the top-level receiver for alerts no other route matches. */
export const TOP_LEVEL_ROUTE_HINT = "# - receiver: <your top-level receiver>";

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
    "# Add to alertmanager.yml: the route FIRST in your existing `route:`'s `routes:` list",
    "# (`continue: true` lets your routes after it still match), the receiver under `receivers:`.",
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
    // Alertmanager falls back to the top-level receiver only when no route matched, and this one did.
    "    # Your routes follow. An alert this route takes that none of yours match no longer reaches your",
    "    # top-level `receiver:` (Alertmanager's fallback); to keep it going there too, end the list with:",
    `    ${TOP_LEVEL_ROUTE_HINT}`,
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
