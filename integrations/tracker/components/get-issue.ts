/** tracker.getIssue: reads an issue with all fields (and optional expansions). */
import { z } from "zod";
import { defineComponent } from "../../core/define";
import { ui } from "../../core/ui-meta";
import { jiraClient } from "../jira-client";
import { exampleIssue, issueKeyField, issueSchema, projectField, toIssueOutput } from "../schemas";

export const EXPAND_VALUES = ["renderedFields", "names", "schema", "transitions", "editmeta", "changelog", "versionedRepresentations"];

export const getIssueConfig = z.object({
  project: projectField(),
  issueKey: issueKeyField(),
  expand: z
    .string()
    .trim()
    .optional()
    .refine((v) => !v || v.split(",").every((x) => EXPAND_VALUES.includes(x.trim())), {
      message: `Expand takes comma-separated values among ${EXPAND_VALUES.join(", ")}`,
    })
    .meta(
      ui({
        title: "Expand",
        placeholder: "changelog,transitions",
        order: 3,
        description: "Comma-separated: renderedFields, names, schema, transitions, editmeta, changelog",
      }),
    ),
});

export const getIssue = defineComponent({
  key: "tracker.getIssue",
  title: "Get Issue",
  description: "Reads a Jira issue with all its fields.",
  docs: "Reads the issue with all fields. **Expand** takes Jira's expand values (`renderedFields`, `names`, `schema`, `transitions`, `editmeta`, `changelog`, `versionedRepresentations`); expanded parts appear beside `fields` in the output.",
  config: getIssueConfig,
  outputType: "tracker.issue",
  output: issueSchema,
  example: exampleIssue,
  async run(ctx) {
    const expand = ctx.config.expand
      ?.split(",")
      .map((s) => s.trim())
      .filter(Boolean)
      .join(",");
    const issue = await jiraClient(ctx.connection!, ctx.http).getIssue(ctx.config.issueKey, expand ? { expand } : {});
    return ctx.emit(toIssueOutput(issue));
  },
});
