import type { NextConfig } from "next";
// Importing env here makes a bad environment fail `next build` early (t3 pattern).
import "./server/env";

const nextConfig: NextConfig = {
  serverExternalPackages: ["better-sqlite3", "jsonata"],
  poweredByHeader: false,
  typedRoutes: false,
};

export default nextConfig;
