/** Server problem paths look like `graph.nodes.2.config.matchers.0.value` or `config.duration`: keep the part after `config.`. */
export function configPath(path: string): string | null {
  const i = path.indexOf("config.");
  if (i >= 0) return path.slice(i + "config.".length);
  if (path === "config") return "";
  return null;
}
