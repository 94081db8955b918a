import type { NextConfig } from "next";
// Importing env here makes a bad environment fail `next build` early (t3 pattern).
import { env } from "./server/env";

const nextConfig: NextConfig = {
  // Separate build dirs let several builds (CI, e2e, a developer) coexist in one checkout.
  distDir: env.NEXT_DIST_DIR,
  // External so the custom server (dist/server, compiled from server/main.ts) and Next's bundle share one drizzle/better-sqlite3.
  serverExternalPackages: ["better-sqlite3", "drizzle-orm", "jsonata", "prom-client"],
  poweredByHeader: false,
  experimental: {
    // Load a route's code when it is first requested instead of every route at start-up: the server
    // starts faster and stays smaller (pages nobody opens cost no memory). docs/benchmarks.md.
    preloadEntriesOnStart: false,
  },
  typedRoutes: false,
};

export default nextConfig;
