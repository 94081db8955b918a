import { ApiReference } from "@scalar/nextjs-api-reference";

/** GET /api/v1/docs: the API reference (Scalar) rendered from /api/v1/openapi.json. */
export const GET = ApiReference({ url: "/api/v1/openapi.json", pageTitle: "Conveyor API reference" });
