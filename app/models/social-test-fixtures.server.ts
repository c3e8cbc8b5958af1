// Test support only (imported by the likes/comments tests, never by the app): kids, moments and
// friendships written straight into the test database.
import { db, nowIso } from "~/lib/db.server";
import { insertFriendship } from "./friendships.server";

let counter = 0;

export async function makeKid(ownerId: number, name = "Kiddo"): Promise<number> {
  const [row] = await db()("kids")
    .insert({ user_id: ownerId, name, birth_date: "2020-01-02", relationship: "Mom", created_at: nowIso() })
    .returning("id");
  return Number(typeof row === "object" ? row.id : row);
}

export async function makeKidMoment(kidId: number, title = "A moment"): Promise<number> {
  counter += 1;
  const now = nowIso();
  const [row] = await db()("daily_logs")
    .insert({ kid_id: kidId, title: `${title} ${counter}`, content: "Sweet.", created_at: now, updated_at: now })
    .returning("id");
  return Number(typeof row === "object" ? row.id : row);
}

/** A moment of a new kid of `ownerId`. */
export async function makeMoment(ownerId: number): Promise<number> {
  return makeKidMoment(await makeKid(ownerId));
}

export async function befriend(
  senderId: number,
  receiverId: number,
  status: "pending" | "accepted" | "denied" = "accepted",
) {
  await insertFriendship(db(), senderId, receiverId, status);
}
