/**
 * What can be checked of deploy/ without Docker or Kubernetes: the files parse, every role runs a
 * real command with readiness on the port it listens on, Redis is configured as docs/scale-out.md
 * says, every variable they set is documented, and the systemd units pass `systemd-analyze verify`.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse, parseAllDocuments } from "yaml";

const ROOT = path.resolve(import.meta.dirname, "..");
const read = (p: string) => fs.readFileSync(path.join(ROOT, p), "utf8");
const README = read("README.md");
const CLI_USAGE = read("server/cli/main.ts");

type Obj = Record<string, unknown>;
const documented = (name: string) => README.includes(`| \`${name}\``) || README.includes(`\`${name}\` /`) || README.includes(`, \`${name}\``);

function roleOf(command: string[]): "web" | "ingress" | "worker" | "migrate" {
  if (command.includes("scripts/serve.mjs")) return "web";
  const i = command.indexOf("bin/conveyor.mjs");
  const verb = command[i + 1];
  expect(["ingress", "worker", "migrate"]).toContain(verb);
  expect(CLI_USAGE).toContain(`conveyor ${verb}`);
  return verb as "ingress" | "worker" | "migrate";
}

function portOf(command: string[], env: Obj): number {
  const i = command.indexOf("--port");
  return i >= 0 ? Number(command[i + 1]) : Number(env.PORT ?? 3000);
}

describe("deploy/compose", () => {
  const compose = parse(read("deploy/compose/compose.yaml"), { merge: true }) as { services: Record<string, Obj> };

  it("runs PostgreSQL 15, Redis 7 with AOF everysec and noeviction, and every role with readiness on its own port", () => {
    const s = compose.services;
    expect(s.postgres!.image).toBe("postgres:15");
    expect(String(s.redis!.image)).toMatch(/^redis:7/);
    const redis = (s.redis!.command as string[]).join(" ");
    expect(redis).toContain("--appendonly yes");
    expect(redis).toContain("--appendfsync everysec");
    expect(redis).toContain("--maxmemory-policy noeviction");
    const seen = new Set<string>();
    for (const name of ["web", "ingress", "worker"]) {
      const svc = s[name]!;
      const command = svc.command as string[];
      const env = svc.environment as Obj;
      const role = roleOf(command);
      expect(role).toBe(name);
      seen.add(role);
      expect(env.DATABASE_URL).toMatch(/^postgres:\/\//);
      expect(env.REDIS_URL).toMatch(/^redis:\/\//);
      expect(env.CONVEYOR_SECRET_KEY).toBeTruthy();
      expect(env.NEXTAUTH_SECRET).toBeTruthy();
      const probe = ((svc.healthcheck as Obj).test as string[]).join(" ");
      expect(probe).toContain(`127.0.0.1:${portOf(command, env)}/api/health/ready`);
    }
    expect((s.web!.environment as Obj).CONVEYOR_RUNNER).toBe("0");
    expect(roleOf(s.migrate!.command as string[])).toBe("migrate");
    expect(seen.size).toBe(3);
  });

  it("routes /hooks/ to the ingress and the rest to the web processes", () => {
    const nginx = read("deploy/compose/nginx.conf");
    expect(nginx).toMatch(/server ingress:3001;/);
    expect(nginx).toMatch(/server web:3000;/);
    expect(nginx).toMatch(/location \/hooks\/ \{ proxy_pass http:\/\/ingress; \}/);
  });
});

describe("deploy/kubernetes", () => {
  const docs = parseAllDocuments(read("deploy/kubernetes/conveyor.yaml")).map((d) => {
    expect(d.errors).toEqual([]);
    return d.toJS() as Obj & { kind: string; metadata: { name: string } };
  });
  const byKind = (kind: string) => docs.filter((d) => d.kind === kind);

  it("has a Secret with the keys every process must share", () => {
    const [secret] = byKind("Secret");
    expect(Object.keys(secret!.stringData as Obj).sort()).toEqual(["CONVEYOR_SECRET_KEY", "DATABASE_URL", "NEXTAUTH_SECRET", "REDIS_URL"]);
  });

  it("has web, ingress and worker Deployments with readiness probes on /api/health/ready of their listening port", () => {
    const roles = new Set<string>();
    for (const d of byKind("Deployment")) {
      const c = ((((d.spec as Obj).template as Obj).spec as Obj).containers as Obj[])[0]!;
      const command = c.command as string[];
      const env = Object.fromEntries(((c.env as Array<{ name: string; value: string }>) ?? []).map((e) => [e.name, e.value]));
      const role = roleOf(command);
      roles.add(role);
      const port = (c.ports as Array<{ name: string; containerPort: number }>).find((p) => p.name === "http")!;
      expect(port.containerPort).toBe(portOf(command, env));
      expect(c.readinessProbe).toMatchObject({ httpGet: { path: "/api/health/ready", port: "http" } });
      expect((c.envFrom as Obj[]).map((e) => Object.keys(e)[0])).toEqual(["secretRef", "configMapRef"]);
      if (role === "web") expect(env.CONVEYOR_RUNNER).toBe("0");
    }
    expect([...roles].sort()).toEqual(["ingress", "web", "worker"]);
  });

  it("sends /hooks/ to the ingress Service", () => {
    const [ing] = byKind("Ingress");
    const paths = (((ing!.spec as Obj).rules as Obj[])[0]!.http as Obj).paths as Array<{ path: string; backend: { service: { name: string } } }>;
    expect(paths.find((p) => p.path === "/hooks/")!.backend.service.name).toBe("conveyor-ingress");
    expect(paths.find((p) => p.path === "/")!.backend.service.name).toBe("conveyor-web");
  });
});

describe("deploy/systemd", () => {
  it("sets Redis as documented", () => {
    const conf = read("deploy/systemd/redis-conveyor.conf");
    expect(conf).toMatch(/^appendonly yes$/m);
    expect(conf).toMatch(/^appendfsync everysec$/m);
    expect(conf).toMatch(/^maxmemory-policy noeviction$/m);
  });

  it("runs real commands", () => {
    for (const unit of ["conveyor-web@.service", "conveyor-ingress@.service", "conveyor-worker@.service", "conveyor-migrate.service"]) {
      const exec = /^ExecStart=(.+)$/m.exec(read(`deploy/systemd/${unit}`))![1]!.split(/\s+/);
      roleOf(exec);
    }
  });

  const analyze = spawnSync("systemd-analyze", ["--version"]).status === 0;
  it.skipIf(!analyze)("passes systemd-analyze verify (paths pointed at this checkout)", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "conveyor-units-"));
    try {
      const units: string[] = [];
      for (const f of fs.readdirSync(path.join(ROOT, "deploy/systemd")).filter((f) => /\.(service|target)$/.test(f))) {
        const text = read(`deploy/systemd/${f}`)
          .replaceAll("/opt/conveyor", ROOT)
          .replaceAll("/etc/conveyor/conveyor.env", path.join(ROOT, "deploy/systemd/conveyor.env.example"));
        // Templates are verified as an instance.
        const name = f.replace("@.service", "@3000.service");
        fs.writeFileSync(path.join(dir, name), text);
        units.push(path.join(dir, name));
      }
      const r = spawnSync("systemd-analyze", ["verify", "--man=no", ...units], { encoding: "utf8" });
      expect(r.stderr.trim()).toBe("");
      expect(r.status).toBe(0);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("deploy/ variables", () => {
  it("every variable the deploy files set is documented in the README's configuration table", () => {
    const compose = parse(read("deploy/compose/compose.yaml"), { merge: true }) as { services: Record<string, Obj> };
    const names = new Set<string>();
    for (const svc of Object.values(compose.services))
      if (svc.environment && String(svc.image).startsWith("conveyor")) Object.keys(svc.environment as Obj).forEach((k) => names.add(k));
    for (const d of parseAllDocuments(read("deploy/kubernetes/conveyor.yaml")).map((x) => x.toJS() as Obj)) {
      if (d.kind === "Secret") Object.keys(d.stringData as Obj).forEach((k) => names.add(k));
      if (d.kind === "ConfigMap") Object.keys(d.data as Obj).forEach((k) => names.add(k));
    }
    for (const line of read("deploy/systemd/conveyor.env.example").split("\n")) {
      const m = /^([A-Z_]+)=/.exec(line);
      if (m) names.add(m[1]!);
    }
    expect(names.size).toBeGreaterThan(8);
    const missing = [...names].filter((n) => !documented(n));
    expect(missing).toEqual([]);
  });

  it("the Dockerfile builds from the checkout's root and runs the web process by default", () => {
    const docker = read("deploy/Dockerfile");
    expect(docker).toMatch(/^FROM node:24/m);
    expect(docker).toContain('CMD ["node", "--max-semi-space-size=16", "scripts/serve.mjs"]');
    expect(docker).toContain("npm run build");
    const ignored = read("deploy/Dockerfile.dockerignore").split("\n");
    for (const p of ["node_modules", ".next*", "data", ".env"]) expect(ignored).toContain(p);
  });
});
