export { validateAutomationDocument } from "./validate-in-workspace";
export { validateDocument } from "./validate-automation";
export { createAutomation, replaceAutomation, patchAutomation, deleteAutomation, duplicateAutomation } from "./save-automation";
export { getAutomationOrThrow, listAutomations, listVersions, getVersion, restoreVersion, exportAutomation, importAutomation } from "./get-automation";
export { renameNodeInGraph } from "@/integrations/core/expressions";
