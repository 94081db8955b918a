/** Automations as code: export a workspace in file form, and plan/apply a bundle of files (all or nothing). */
import { ExportBundleSchema, ImportBodySchema, ImportResultSchema } from "@/server/contracts/as-code";
import { defineOperation as op } from "../operation";
import { FactoryParams } from "./params";

export const exportFactory = op({
  id: "exportFactory",
  method: "GET",
  path: "/factories/{factoryId}/export",
  tag: "As code",
  summary: "Export a workspace as specs",
  description:
    "Every automation, line and webhook intake in file form: stable `key`s instead of ids, connections by name, secret fields as `{ secret: <name> }` references (values are never returned). `npx conveyor export` writes one YAML file per resource from it.",
  params: FactoryParams,
  response: ExportBundleSchema,
});
export const importFactory = op({
  id: "importFactory",
  method: "POST",
  path: "/factories/{factoryId}/import",
  tag: "As code",
  summary: "Plan or apply specs (bulk import)",
  description:
    "Matches resources by `key`. With `dryRun: true` nothing is written and the answer is the plan: what would be created, updated (field-level `changes`), deleted (`prune`) or left unchanged, and `conflicts`: resources changed outside the files since the last apply. " +
    "Without it the bundle is applied in one transaction: all or nothing. Every problem is answered at once (422, each `path` into the body, e.g. `apps.0.graph.nodes.1.connection`); conflicts are refused with 409 unless `force`. " +
    "Applied resources record their `source` (repository, file, commit) and show as managed in Git in the editor. Secret values come only from `secrets` (write-only) or what is stored.",
  params: FactoryParams,
  body: ImportBodySchema,
  response: ImportResultSchema,
  errors: [409, 422],
});

export const asCodeOps = [exportFactory, importFactory];
