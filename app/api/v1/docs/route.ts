import { ApiReference } from "@scalar/nextjs-api-reference";

/** GET /api/v1/docs: the API reference (Scalar) rendered from /api/v1/openapi.json, script served locally. */
export const GET = ApiReference({ url: "/api/v1/openapi.json", pageTitle: "Conveyor API reference", cdn: "/api/v1/docs/scalar.js" });
