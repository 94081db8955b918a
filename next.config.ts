import type { NextConfig } from "next";
// Importing env here makes a bad environment fail `next build` early (t3 pattern).
import { env } from "./server/env";

const nextConfig: NextConfig = {
  // Separate build dirs let several builds (CI, e2e, a developer) coexist in one checkout.
  distDir: env.NEXT_DIST_DIR,
  // External so the custom server (server/main.ts, run by tsx) and Next's bundle share one drizzle/better-sqlite3.
  serverExternalPackages: ["better-sqlite3", "drizzle-orm", "jsonata", "prom-client"],
  poweredByHeader: false,
  typedRoutes: false,
};

export default nextConfig;
