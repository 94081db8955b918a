/**
 * Starts the real metrics stack from the command line (dev, Playwright global setup):
 *   tsx integrations/metrics/testing/metrics-stack-cli.ts [--webhook-url URL] [--secret S] [--no-rule]
 * Prints one JSON line {prometheusUrl, alertmanagerUrl, dir} once both are ready; stops on SIGINT/SIGTERM.
 * By default loads the rule `ConveyorAlwaysFiring` (vector(1) > 0) so an alert fires at once.
 */
import { startMetricsStack } from "./metrics-stack";

const args = process.argv.slice(2);
const opt = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};

const stack = await startMetricsStack({
  rules: args.includes("--no-rule")
    ? []
    : [
        {
          alert: "ConveyorAlwaysFiring",
          expr: "vector(1) > 0",
          labels: { severity: "critical", team: "e2e" },
          annotations: { summary: "Always firing (Conveyor e2e)" },
        },
      ],
  webhookUrl: opt("--webhook-url"),
  webhookSecret: opt("--secret"),
});
console.log(JSON.stringify({ prometheusUrl: stack.prometheusUrl, alertmanagerUrl: stack.alertmanagerUrl, dir: stack.dir }));
const shutdown = () => void stack.stop().then(() => process.exit(0));
process.once("SIGINT", shutdown);
process.once("SIGTERM", shutdown);
