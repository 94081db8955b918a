import { z } from "zod";

export const Id = (example: string, description?: string) =>
  z
    .string()
    .min(1)
    .max(100)
    .meta({ example, ...(description ? { description } : {}) });
export const FactoryParams = z.object({ factoryId: Id("ws_0a1b2c3d4e5f6g7h", "Workspace id") });
export const LineParams = FactoryParams.extend({ lineId: Id("lin_0a1b2c3d4e5f6g7h") });
export const OrderParams = FactoryParams.extend({ orderId: Id("tsk_0a1b2c3d4e5f6g7h") });
export const IntakeParams = FactoryParams.extend({ intakeId: Id("int_0a1b2c3d4e5f6g7h") });
export const AppParams = FactoryParams.extend({ appId: Id("aut_0a1b2c3d4e5f6g7h", "Automation id") });
export const VersionParams = AppParams.extend({ version: z.coerce.number().int().min(1).max(1_000_000).meta({ example: 3 }) });
export const RunParams = AppParams.extend({ runId: Id("run_0a1b2c3d4e5f6g7h") });
export const ConnectionParams = FactoryParams.extend({ connectionId: Id("con_0a1b2c3d4e5f6g7h") });
