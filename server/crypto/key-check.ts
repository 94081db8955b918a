/**
 * Scale-out mode: every process must share CONVEYOR_SECRET_KEY. A process started with another key
 * used to start and look ready, then refuse every delivery to an intake with a secret as "the database
 * did not answer" (503) and fail every step using a connection. It now stops at start instead, when
 * the database holds an encrypted value its key cannot open.
 */
import type { Store } from "@/db/store";
import type { SecretBox } from "./secret-box";

export async function checkSecretKey(store: Pick<Store, "settings">, box: SecretBox): Promise<void> {
  const sample = await store.settings.encryptedSample();
  if (!sample) return;
  try {
    box.decrypt(sample);
  } catch {
    throw new Error(
      "CONVEYOR_SECRET_KEY is not the key this installation's secrets were encrypted with (a stored secret: a connection's, a webhook's or a node setting's, cannot be decrypted with it). " +
        "Every process must use the same key: copy it from a running process's environment (after migrate-to-postgres: the SQLite installation's data/secret.key).",
    );
  }
}
