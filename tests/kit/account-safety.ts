// What the account-safety route tests share (app/routes/account-safety.test.ts and
// app/routes/relative-sign-in-links.test.ts): forms posted as a browser without JavaScript posts
// them, who is signed in, and the mail in the real queue.
import { db } from "../../app/lib/db.server";
import { getUser } from "../../app/web/auth.server";
import { postForm, req } from "../helpers";

export type Answer = {
  data?: { intent?: string; result?: { error?: Record<string, string[]> }; error?: string };
  init?: { status?: number };
};

export const post = postForm<Answer>;

export const signedIn = async (cookie: string) => (await getUser(req("/", { cookie }))) !== null;
export const cookieOf = (res: Response) => res.headers.get("Set-Cookie")!.split(";")[0]!;
export const lastMailTo = (to: string) => db()("mail_messages").where("to_address", to).orderBy("id", "desc").first();
export const linkIn = (text: string, path: string) =>
  new RegExp(`https?://[^/\\s]+(${path}/([A-Za-z0-9_-]{43}))`).exec(text);
