import { describe, expect, it } from "vitest";
import { buildCatalog } from "@/integrations/core/catalog";
import { indexCatalog } from "./catalog-context";
import { withoutTypedSecrets } from "./local-draft";
import type { GraphDoc } from "./types";


describe("unsaved changes kept in the browser", () => {
  const { byKey } = indexCatalog(buildCatalog());
  const graph = (secret: string): GraphDoc =>
    ({
      nodes: [
        { id: "t", name: "hook", key: "core.webhook", config: { authentication: "hmac", secret } },
        { id: "h", name: "call", key: "core.http", config: { url: "http://127.0.0.1:9/x", method: "POST" } },
      ],
      edges: [{ from: "t", to: "h" }],
    }) as unknown as GraphDoc;

  it("leaves out a secret typed into a node, and say which node to type it again in", () => {
    const { graph: kept, leftOut } = withoutTypedSecrets(graph("typed-in-the-form-42"), byKey);
    expect(JSON.stringify(kept)).not.toContain("typed-in-the-form-42");
    expect(kept.nodes[0]!.config).toEqual({ authentication: "hmac", secret: "" });
    expect(kept.nodes[1]).toEqual(graph("x").nodes[1]); // nothing secret there: as it was
    expect(leftOut).toEqual(["hook"]);
  });

  it("keeps a stored secret (shown masked), which saving keeps as stored", () => {
    const g = graph("********");
    expect(withoutTypedSecrets(g, byKey)).toEqual({ graph: g, leftOut: [] });
  });
});
