/** API keys as admins see them (the plaintext key is returned once, on creation). */
import { z } from "zod";
import { IsoTimestampSchema } from "./common";

export const ApiKeyRoleSchema = z.enum(["admin", "editor", "operator", "viewer"]);

export const ApiKeyRecordSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    prefix: z.string().meta({ example: "cvk_ab12cd34" }),
    role: ApiKeyRoleSchema,
    workspaceIds: z.array(z.string()).nullable().meta({ description: "null = every workspace." }),
    status: z.enum(["active", "revoked", "expired"]),
    createdBy: z.string().nullable(),
    createdAt: IsoTimestampSchema,
    lastUsedAt: IsoTimestampSchema.nullable(),
    expiresAt: IsoTimestampSchema.nullable(),
    revokedAt: IsoTimestampSchema.nullable(),
  })
  .meta({ id: "ApiKey" });

export const CreateApiKeyBodySchema = z.strictObject({
  name: z.string().trim().min(1).max(100),
  role: ApiKeyRoleSchema,
  workspaceIds: z.array(z.string()).max(200).nullish(),
  expiresAt: z.iso.datetime({ offset: true }).nullish(),
});
