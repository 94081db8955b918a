import { describe, expect, it } from "vitest";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createSecretBox, loadOrCreateKey, parseKey, SecretKeyError } from "./secret-box";

describe("secret box (AES-256-GCM)", () => {
  const box = createSecretBox(randomBytes(32));

  it("round-trips text and JSON, with a fresh IV each time", () => {
    const a = box.encrypt("s3cr3t token");
    const b = box.encrypt("s3cr3t token");
    expect(a).not.toBe(b);
    expect(a).not.toContain("s3cr3t");
    expect(box.decrypt(a)).toBe("s3cr3t token");
    expect(box.decryptJson(box.encryptJson({ refresh: "r1", n: 2 }))).toEqual({ refresh: "r1", n: 2 });
  });

  it("detects tampering with the ciphertext or the tag", () => {
    const sealed = box.encrypt("do not change me");
    const [v, iv, tag, ct] = sealed.split(".");
    const flipped = Buffer.from(ct!, "base64url");
    flipped[0]! ^= 1;
    expect(() => box.decrypt([v, iv, tag, flipped.toString("base64url")].join("."))).toThrow(SecretKeyError);
    const badTag = Buffer.from(tag!, "base64url");
    badTag[3]! ^= 0xff;
    expect(() => box.decrypt([v, iv, badTag.toString("base64url"), ct].join("."))).toThrow(/altered|not the key/);
    expect(() => box.decrypt("garbage")).toThrow(/malformed/);
  });

  it("fails clearly with the wrong key", () => {
    const other = createSecretBox(randomBytes(32));
    expect(() => other.decrypt(box.encrypt("x"))).toThrow(/CONVEYOR_SECRET_KEY is not the key/);
  });

  it("accepts 32-byte keys as hex or base64 and rejects other lengths", () => {
    const key = randomBytes(32);
    expect(parseKey(key.toString("hex")).equals(key)).toBe(true);
    expect(parseKey(key.toString("base64")).equals(key)).toBe(true);
    expect(() => parseKey("tooshort")).toThrow(/32 bytes/);
  });

  it("generates the key once into the data dir with 0600 permissions and reuses it", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "conveyor-key-"));
    const k1 = loadOrCreateKey(dir);
    const k2 = loadOrCreateKey(dir);
    expect(k1.equals(k2)).toBe(true);
    expect(fs.statSync(path.join(dir, "secret.key")).mode & 0o777).toBe(0o600);
    const fromEnv = randomBytes(32);
    expect(loadOrCreateKey(dir, fromEnv.toString("base64")).equals(fromEnv)).toBe(true);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
