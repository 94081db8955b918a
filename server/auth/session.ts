import "server-only";
import { cache } from "react";
import { getServerSession } from "next-auth";
import { authOptions } from "./config";
import { getDeps } from "../deps";
import { getUserActor } from "../services/users/get-user-actor";

/** The signed-in user's Actor for this request (cached per request), or null. */
export const getSessionActor = cache(async () => {
  const session = await getServerSession(authOptions);
  const uid = (session?.user as { id?: string } | undefined)?.id;
  if (!uid) return null;
  return getUserActor(await getDeps(), uid);
});
