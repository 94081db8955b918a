import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";

/** The next-auth signing secret: from env, else generated once into `<dataDir>/auth.secret` (0600). */
export function loadOrCreateAuthSecret(dataDir: string, fromEnv?: string): string {
  if (fromEnv) return fromEnv;
  const file = path.join(dataDir, "auth.secret");
  if (fs.existsSync(file)) return fs.readFileSync(file, "utf8").trim();
  fs.mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(32).toString("base64url");
  try {
    fs.writeFileSync(file, secret + "\n", { mode: 0o600, flag: "wx" });
    return secret;
  } catch {
    return fs.readFileSync(file, "utf8").trim();
  }
}
