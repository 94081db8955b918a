/**
 * AES-256-GCM for secrets at rest (connection secrets, OAuth tokens, webhook secrets).
 * Format: `v1.<iv b64url>.<tag b64url>.<ciphertext b64url>`. Tampering or a wrong key fails with
 * a clear error instead of returning garbage.
 */
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";

export class SecretKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SecretKeyError";
  }
}

export interface SecretBox {
  encrypt(plaintext: string): string;
  decrypt(sealed: string): string;
  encryptJson(value: unknown): string;
  decryptJson<T = unknown>(sealed: string): T;
  /** HMAC-SHA256 of `data` under a key derived (HKDF) from the secret key for `purpose` (e.g. pagination cursors). */
  mac(purpose: string, data: string): Buffer;
}

export function parseKey(raw: string): Buffer {
  const trimmed = raw.trim();
  const key = /^[0-9a-f]{64}$/i.test(trimmed) ? Buffer.from(trimmed, "hex") : Buffer.from(trimmed, "base64");
  if (key.length !== 32) {
    throw new SecretKeyError("CONVEYOR_SECRET_KEY must be 32 bytes, given as 64 hex characters or base64");
  }
  return key;
}

export function createSecretBox(key: Buffer): SecretBox {
  if (key.length !== 32) throw new SecretKeyError("Secret key must be 32 bytes");
  const macKeys = new Map<string, Buffer>();
  const box: SecretBox = {
    encrypt(plaintext) {
      const iv = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", key, iv);
      const ct = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
      return ["v1", iv.toString("base64url"), cipher.getAuthTag().toString("base64url"), ct.toString("base64url")].join(".");
    },
    decrypt(sealed) {
      const parts = sealed.split(".");
      if (parts.length !== 4 || parts[0] !== "v1") throw new SecretKeyError("Encrypted value is malformed");
      const [, iv, tag, ct] = parts as [string, string, string, string];
      try {
        const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
        decipher.setAuthTag(Buffer.from(tag, "base64url"));
        return Buffer.concat([decipher.update(Buffer.from(ct, "base64url")), decipher.final()]).toString("utf8");
      } catch {
        throw new SecretKeyError("Cannot decrypt a stored secret: the data was altered or CONVEYOR_SECRET_KEY is not the key it was encrypted with");
      }
    },
    encryptJson: (value) => box.encrypt(JSON.stringify(value)),
    decryptJson: (sealed) => JSON.parse(box.decrypt(sealed)),
    mac(purpose, data) {
      let k = macKeys.get(purpose);
      if (!k) macKeys.set(purpose, (k = Buffer.from(hkdfSync("sha256", key, Buffer.alloc(0), `conveyor ${purpose}`, 32))));
      return createHmac("sha256", k).update(data).digest();
    },
  };
  return box;
}

/**
 * The key from `CONVEYOR_SECRET_KEY`, or one generated once into `<dataDir>/secret.key` (0600).
 */
export function loadOrCreateKey(dataDir: string, fromEnv?: string): Buffer {
  if (fromEnv) return parseKey(fromEnv);
  const file = path.join(dataDir, "secret.key");
  if (fs.existsSync(file)) return parseKey(fs.readFileSync(file, "utf8"));
  fs.mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(32);
  try {
    fs.writeFileSync(file, key.toString("base64") + "\n", { mode: 0o600, flag: "wx" });
  } catch (e) {
    // Another process created it first: use theirs.
    if ((e as NodeJS.ErrnoException).code === "EEXIST") return parseKey(fs.readFileSync(file, "utf8"));
    throw e;
  }
  return key;
}
