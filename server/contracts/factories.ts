/** Workspaces ("factories" in paths). */
import { z } from "zod";
import { IsoTimestampSchema } from "./common";

export const FactorySchema = z
  .object({
    id: z.string().meta({ example: "ws_0a1b2c3d4e5f6g7h" }),
    name: z.string().meta({ example: "Production ops" }),
    createdAt: IsoTimestampSchema,
    updatedAt: IsoTimestampSchema,
  })
  .meta({ id: "Factory", description: "A workspace: the tenant boundary for automations, connections, lines, tasks, intakes and usage." });
export type Factory = z.infer<typeof FactorySchema>;

export const CreateFactoryBodySchema = z
  .strictObject({ name: z.string().trim().min(1).max(100).meta({ example: "Production ops" }) })
  .meta({ id: "CreateFactoryBody" });
export const UpdateFactoryBodySchema = CreateFactoryBodySchema.meta({ id: "UpdateFactoryBody" });
