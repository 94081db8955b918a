/**
 * `npm run fake:atlassian`: starts the fake Atlassian on a fixed loopback port for offline demos and prints
 * what to put into a tracker connection. Options: PORT (default 4610), CONSENT=auto|page (default page),
 * SECOND_SITE=1 for two accessible sites.
 */
import { startFakeAtlassian } from "./fake-atlassian/server";

const port = Number(process.env.PORT ?? 4610);
const fake = await startFakeAtlassian({
  port,
  consentMode: process.env.CONSENT === "auto" ? "auto" : "page",
  secondSite: process.env.SECOND_SITE === "1",
});
console.log(`Fake Atlassian listening on ${fake.url}
  Auth base URL (authBaseUrl): ${fake.url}
  API base URL (apiBaseUrl):   ${fake.url}
  OAuth client id:             ${fake.demo.clientId}
  OAuth client secret:         ${fake.demo.clientSecret}
  Site:                        ${fake.demo.siteName} (cloud id ${fake.demo.cloudId})
  Projects:                    OPS (company-managed), TEAM (team-managed)
  Service desk (JSM):          SD, incident request types "Report a system problem", "Major incident"
  Ops teams (enableOpsFeatures): Red Team, Blue Team
  Consenting user:             Mia Krystof (${fake.demo.users.mia})
Create an issue (raises webhook deliveries to registered Conveyor triggers):
  curl -s -X POST ${fake.url}/__fake/jira/issues -H 'content-type: application/json' -d '{"project":"OPS","summary":"Checkout is slow"}'
Comment on it / read it back:
  curl -s -X POST ${fake.url}/__fake/jira/issues/OPS-1/comments -H 'content-type: application/json' -d '{"text":"rollback done"}'
  curl -s ${fake.url}/__fake/jira/issues/OPS-1
Ctrl-C to stop.`);
const stop = () => void fake.stop().then(() => process.exit(0));
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
