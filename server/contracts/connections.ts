/** Connections over REST (scripted set-up; beyond the spec). Secret fields are write-only. */
import { z } from "zod";
import { IsoTimestampSchema } from "./common";

export const ConnectionStatusSchema = z.enum(["ready", "needs_authorization", "needs_reconnect", "needs_site", "error"]);

export const ConnectionSchema = z
  .object({
    id: z.string().meta({ example: "con_0a1b2c3d4e5f6g7h" }),
    integration: z.string().meta({ example: "metrics" }),
    kind: z.enum(["form", "oauth2"]).optional().meta({ description: "oauth2 connections are authorised in the browser." }),
    name: z.string().meta({ example: "prod prometheus" }),
    config: z.record(z.string(), z.unknown()).meta({
      description: "Settings with secret fields omitted.",
      example: { metricsBaseUrl: "http://prometheus:9090", alertRouterBaseUrl: "http://alertmanager:9093", apiAuth: { type: "none" } },
    }),
    secretsSet: z
      .array(z.string())
      .optional()
      .meta({ description: "Secret fields that have a value (the values are never returned).", example: ["webhookSecret"] }),
    status: ConnectionStatusSchema,
    statusMessage: z.string().nullable().optional(),
    state: z
      .record(z.string(), z.unknown())
      .optional()
      .meta({ description: "Non-secret integration state (e.g. the tracker site); `verifiedAt`: when the settings last passed verify." }),
    createdAt: IsoTimestampSchema,
    updatedAt: IsoTimestampSchema.optional(),
  })
  .meta({ id: "Connection" });

export const CreateConnectionBodySchema = z
  .strictObject({
    integration: z.string().min(1).max(50).meta({ example: "metrics" }),
    name: z.string().trim().min(1).max(100),
    config: z.record(z.string(), z.unknown()).meta({
      description: "Integration settings (camelCase); checked against the integration's connection schema.",
      example: {
        metricsBaseUrl: "http://127.0.0.1:9090",
        alertRouterBaseUrl: "http://127.0.0.1:9093",
        apiAuth: { type: "none" },
        webhookSecret: "s3cret-value",
      },
    }),
  })
  .meta({ id: "CreateConnectionBody" });

export const UpdateConnectionBodySchema = z
  .strictObject({
    name: z.string().trim().min(1).max(100).optional(),
    config: z.record(z.string(), z.unknown()).optional().meta({ description: "Omitted secret fields keep their stored value." }),
  })
  .meta({ id: "UpdateConnectionBody" });

export const VerifyResultSchema = z
  .object({ ok: z.boolean(), message: z.string(), connection: ConnectionSchema })
  .meta({ id: "ConnectionVerifyResult", description: "Outcome of one live call to the upstream; the connection's status is updated." });

/** GET /catalog: what scripts need to write automation documents without the editor. */
export const CatalogSchema = z
  .object({
    integrations: z.array(
      z
        .object({
          key: z.string(),
          title: z.string(),
          description: z.string().optional(),
          triggers: z.array(z.looseObject({ key: z.string(), title: z.string() })).optional(),
          components: z.array(z.looseObject({ key: z.string(), title: z.string() })).optional(),
        })
        .loose(),
    ),
  })
  .loose()
  .meta({
    id: "Catalog",
    description: "Every integration with its triggers and components: key, title, description, config JSON Schema, output type and example.",
  });
