/**
 * A small JQL evaluator: `field op value` clauses joined by AND / OR (AND binds tighter), `IN (...)` lists,
 * relative dates (`updated >= -90d`) and `ORDER BY field [ASC|DESC]`. Enough for pickers, searches and the
 * dynamic-webhook `jqlFilter` (which Jira restricts to a few fields and operators: see `WEBHOOK_FIELDS`).
 */
import type { FakeIssue, JiraSite } from "../site";

export interface Clause {
  field: string;
  op: string;
  values: string[];
}
export interface Jql {
  or: Clause[][];
  orderBy?: { field: string; dir: "ASC" | "DESC" };
}

export const WEBHOOK_FIELDS = new Set(["issuekey", "project", "issuetype", "status", "assignee", "reporter"]);
export const WEBHOOK_OPS = new Set(["=", "!=", "IN", "NOT IN"]);

function tokenize(src: string): string[] {
  const out: string[] = [];
  const re = /\s*("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|!=|>=|<=|[=<>(),~]|[^\s=!<>(),~"']+)/gy;
  let m: RegExpExecArray | null;
  let pos = 0;
  while ((m = re.exec(src))) {
    out.push(m[1]!);
    pos = re.lastIndex;
  }
  if (src.slice(pos).trim()) throw new Error(`Error in the JQL Query: unexpected '${src.slice(pos).trim()}'.`);
  return out;
}

const unquote = (t: string) => (/^["']/.test(t) ? t.slice(1, -1).replace(/\\(.)/g, "$1") : t);

export function parseJql(src: string): Jql {
  const tokens = tokenize(src);
  let i = 0;
  const peek = () => tokens[i]?.toUpperCase();
  const take = () => tokens[i++]!;
  const jql: Jql = { or: [[]] };
  while (i < tokens.length && peek() !== "ORDER") {
    const field = unquote(take()).toLowerCase();
    let op = take()?.toUpperCase();
    if (op === "NOT" && peek() === "IN") {
      take();
      op = "NOT IN";
    }
    if (!op || !["=", "!=", ">=", "<=", ">", "<", "~", "IN", "NOT IN", "IS", "WAS"].includes(op)) {
      throw new Error(`Error in the JQL Query: Expecting operator but got '${op ?? "end of query"}'.`);
    }
    const values: string[] = [];
    if (op === "IN" || op === "NOT IN") {
      if (take() !== "(") throw new Error("Error in the JQL Query: Expecting '(' after IN.");
      while (i < tokens.length && tokens[i] !== ")") {
        const v = take();
        if (v !== ",") values.push(unquote(v));
      }
      take();
    } else {
      const v = tokens[i] === undefined ? undefined : take();
      if (v === undefined) throw new Error("Error in the JQL Query: Expecting a value.");
      values.push(unquote(v));
    }
    jql.or[jql.or.length - 1]!.push({ field, op, values });
    const joiner = peek();
    if (joiner === "AND") take();
    else if (joiner === "OR") {
      take();
      jql.or.push([]);
    } else if (joiner !== undefined && joiner !== "ORDER") throw new Error(`Error in the JQL Query: Expecting AND, OR or ORDER BY but got '${tokens[i]}'.`);
  }
  if (peek() === "ORDER") {
    take();
    if (peek() !== "BY") throw new Error("Error in the JQL Query: Expecting 'BY' after ORDER.");
    take();
    const field = unquote(take()).toLowerCase();
    const dir = peek() === "ASC" ? "ASC" : "DESC";
    if (peek() === "ASC" || peek() === "DESC") take();
    jql.orderBy = { field, dir };
  }
  if (jql.or.length === 1 && jql.or[0]!.length === 0) jql.or = [];
  return jql;
}

function relative(value: string, now: number): number {
  const m = /^(-?\d+)([mhdw])$/.exec(value);
  if (!m) return Date.parse(value);
  const unit = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }[m[2] as "m" | "h" | "d" | "w"];
  return now + Number(m[1]) * unit;
}

function fieldValues(site: JiraSite, issue: FakeIssue, field: string): Array<string | number> {
  const project = site.projects.get(issue.projectId)!;
  const type = site.issueTypes.get(issue.issueTypeId)!;
  const status = site.statuses.get(issue.statusId)!;
  switch (field) {
    case "project":
      return [project.key, project.id, project.name];
    case "issuetype":
    case "type":
      return [type.name, type.id];
    case "status":
      return [status.name, status.id];
    case "issuekey":
    case "key":
    case "id":
      return [issue.key, issue.id];
    case "assignee":
      return issue.assigneeId ? [issue.assigneeId] : ["EMPTY"];
    case "reporter":
      return [issue.reporterId];
    case "labels":
      return issue.labels;
    case "updated":
      return [issue.updated];
    case "created":
      return [issue.created];
    case "summary":
    case "text":
      return [issue.summary];
    default:
      return [];
  }
}

function clauseMatches(site: JiraSite, issue: FakeIssue, c: Clause, now: number): boolean {
  const actual = fieldValues(site, issue, c.field);
  const lower = (v: string | number) => String(v).toLowerCase();
  const has = (v: string) => actual.some((a) => lower(a) === v.toLowerCase());
  switch (c.op) {
    case "=":
    case "IS":
      return has(c.values[0]!);
    case "!=":
      return !has(c.values[0]!);
    case "IN":
      return c.values.some(has);
    case "NOT IN":
      return !c.values.some(has);
    case "~":
      return actual.some((a) => lower(a).includes(c.values[0]!.toLowerCase()));
    default: {
      const a = Number(actual[0]);
      const b = relative(c.values[0]!, now);
      return c.op === ">=" ? a >= b : c.op === "<=" ? a <= b : c.op === ">" ? a > b : a < b;
    }
  }
}

export function matchesJql(site: JiraSite, issue: FakeIssue, jql: Jql, now: number): boolean {
  if (!jql.or.length) return true;
  return jql.or.some((group) => group.every((c) => clauseMatches(site, issue, c, now)));
}

export function sortByJql(issues: FakeIssue[], jql: Jql): FakeIssue[] {
  const f = jql.orderBy?.field ?? "created";
  const dir = jql.orderBy?.dir === "ASC" ? 1 : -1;
  const key = (i: FakeIssue) => (f === "updated" ? i.updated : f === "created" ? i.created : Number(i.id));
  return [...issues].sort((a, b) => (key(a) - key(b)) * dir || (Number(a.id) - Number(b.id)) * dir);
}
