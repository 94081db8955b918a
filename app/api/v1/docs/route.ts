import { ApiReference } from "@scalar/nextjs-api-reference";

/**
 * GET /api/v1/docs: the API reference (Scalar) rendered from /api/v1/openapi.json, script served
 * locally. The viewer's own hosted features are off: its AI chat ("Ask AI"), "Generate MCP" and the
 * developer toolbar (with "Deploy") would send the document to Scalar's services.
 */
export const GET = ApiReference({
  url: "/api/v1/openapi.json",
  pageTitle: "Conveyor API reference",
  cdn: "/api/v1/docs/scalar.js",
  agent: { disabled: true },
  mcp: { disabled: true },
  showDeveloperTools: "never",
  telemetry: false,
});
