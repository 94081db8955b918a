export * from "./auth";
export * from "./workspaces";
export * from "./automations";
export * from "./runs";
export * from "./integrations";
export * from "./api-keys";
export * from "./usage";
export * from "./memories";
