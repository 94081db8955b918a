/**
 * Child process for the cross-process refresh test: loads the tracker connection from the shared SQLite file
 * (real registry, real Atlassian provider against the fake) and prints the access token it obtains.
 *   DB_URL=… SECRET_HEX=… CONNECTION_ID=… START_AT=<epoch ms> node --import tsx integrations/tracker/testing/refresh-child.ts
 */
import { refreshInChild } from "@/server/services/connections/testing/refresh-in-child";

refreshInChild();
