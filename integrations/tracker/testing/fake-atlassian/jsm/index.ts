export { JsmState } from "./state";
export type { JsmApproval, JsmRequest, JsmRequestType, JsmServiceDesk, JsmUser } from "./state";
export { jsmModule, jsmRoutes, JSM_PREFIX } from "./routes";
