import fs from "node:fs/promises";
import path from "node:path";

export const dynamic = "force-static";

/**
 * GET /api/v1/docs/scalar.js: the Scalar API reference bundle served from node_modules, so the
 * reference page works offline instead of loading its script from a CDN.
 */
export async function GET() {
  const file = path.join(process.cwd(), "node_modules", "@scalar", "api-reference", "dist", "browser", "standalone.js");
  return new Response(await fs.readFile(file), {
    headers: { "content-type": "text/javascript; charset=utf-8", "cache-control": "public, max-age=86400" },
  });
}
