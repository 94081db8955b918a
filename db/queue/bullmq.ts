/** The BullMQ work queue (scale-out mode). */
import type { OpenedStorage } from "../open";
import type { WorkQueue } from "./types";

export async function openBullmqQueue(_redisUrl: string, _storage: OpenedStorage, _opts: { prefix?: string } = {}): Promise<WorkQueue> {
  throw new Error("not yet");
}
