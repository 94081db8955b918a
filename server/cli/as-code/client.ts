/** The command line as a REST client: `CONVEYOR_URL` / `--url` and `CONVEYOR_API_KEY` / `--api-key`. */
export interface ApiProblem {
  status: number;
  code?: string;
  detail?: string;
  errors?: Array<{ path: string; message: string }>;
}

export class ApiError extends Error {
  constructor(readonly problem: ApiProblem) {
    super(problem.detail ?? `HTTP ${problem.status}`);
  }
}

export function createClient(opts: { url?: string; apiKey?: string }) {
  // The API's own address (what README's curl examples export as $CONVEYOR) names the same server.
  const base = (opts.url ?? "http://localhost:3000").replace(/\/+$/, "").replace(/\/api\/v1$/, "");
  if (!opts.apiKey) throw new Error("Set CONVEYOR_API_KEY (or --api-key) to an API key with the editor role: npx conveyor keys create --name ci --role editor");
  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    let res: Response;
    try {
      res = await fetch(`${base}/api/v1${path}`, {
        method,
        headers: { authorization: `Bearer ${opts.apiKey}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (e) {
      throw new Error(
        `Cannot reach ${base} (${(e as Error).cause ? String(((e as Error).cause as Error).message) : (e as Error).message}); set CONVEYOR_URL or --url`,
      );
    }
    const text = await res.text();
    let json: unknown = null;
    try {
      json = text ? (JSON.parse(text) as unknown) : null;
    } catch {
      // A web page (a proxy, a sign-in page, the wrong port) rather than Conveyor's API.
      const type = res.headers.get("content-type")?.split(";")[0] ?? "no content type";
      throw new Error(
        `${base}/api/v1${path.split("?")[0]} answered ${res.status} with ${type}, not JSON: is ${base} the address of the Conveyor server (without /api/v1)? Set CONVEYOR_URL or --url`,
      );
    }
    if (!res.ok) throw new ApiError({ status: res.status, ...((json ?? {}) as object) });
    return json as T;
  };
  return {
    base,
    get: <T>(path: string) => call<T>("GET", path),
    post: <T>(path: string, body: unknown) => call<T>("POST", path, body),
  };
}
export type Client = ReturnType<typeof createClient>;

/** A workspace by id or by exact name (`--workspace`). */
export async function resolveWorkspace(client: Client, wanted: string | undefined): Promise<{ id: string; name: string }> {
  if (!wanted) throw new Error("Name the workspace: --workspace <id|name> (or CONVEYOR_WORKSPACE)");
  const all: Array<{ id: string; name: string }> = [];
  let cursor: string | null = null;
  do {
    const page: { data: Array<{ id: string; name: string }>; nextCursor: string | null } = await client.get(
      `/factories?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
    );
    all.push(...page.data);
    cursor = page.nextCursor;
  } while (cursor);
  const found = all.filter((w) => w.id === wanted || w.name === wanted);
  if (found.length === 1) return found[0]!;
  if (found.length > 1) throw new Error(`${found.length} workspaces are named "${wanted}"; use its id (${found.map((w) => w.id).join(", ")})`);
  throw new Error(`No workspace "${wanted}" is visible to this API key (${all.map((w) => `${w.name} = ${w.id}`).join(", ") || "none"})`);
}
