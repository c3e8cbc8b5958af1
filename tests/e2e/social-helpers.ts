// Data for the likes-and-comments specs. Accounts are made through the UI (signUp); the kid, the
// moment and the accepted friendship are written straight into the e2e server's database, so these
// specs do not depend on the kid and moment forms.
import type { Browser, Page, TestInfo } from "@playwright/test";
import { e2eDb } from "./e2e-db";
import { newAccount, signUp } from "./utils";

export type Account = ReturnType<typeof newAccount> & { id: number };

async function idOf(username: string): Promise<number> {
  const row = await e2eDb()("users").where("username", username).first("id");
  if (!row) throw new Error(`no user ${username}`);
  return Number(row.id);
}

/** Signs up a new account on `page` (which stays signed in as it). */
export async function signUpAs(page: Page, prefix: string): Promise<Account> {
  const account = await signUp(page, newAccount(prefix));
  return { ...account, id: await idOf(account.username) };
}

/** A second signed-in person in their own browser context (same JavaScript setting as the test). */
export async function otherPerson(browser: Browser, testInfo: TestInfo, prefix: string) {
  const context = await browser.newContext({
    baseURL: testInfo.project.use.baseURL,
    javaScriptEnabled: testInfo.project.use.javaScriptEnabled,
  });
  const page = await context.newPage();
  const account = await signUpAs(page, prefix);
  return { account, page, close: () => context.close() };
}

/** A kid of `owner` with one moment; answers the moment's id. */
export async function momentOf(owner: Account, title = "First steps"): Promise<number> {
  const now = new Date().toISOString();
  const [kid] = await e2eDb()("kids")
    .insert({ user_id: owner.id, name: "Elsa", birth_date: "2021-03-04", relationship: "Mom", created_at: now })
    .returning("id");
  const kidId = Number(typeof kid === "object" ? kid.id : kid);
  const [log] = await e2eDb()("daily_logs")
    .insert({ kid_id: kidId, title, content: "She walked across the room!", created_at: now, updated_at: now })
    .returning("id");
  return Number(typeof log === "object" ? log.id : log);
}

/** A kid of `owner` with `count` moments (oldest first, a second apart). */
export async function kidWithMoments(owner: Account, count: number): Promise<{ kidId: number; logIds: number[] }> {
  const start = Date.now() - count * 1000;
  const [kid] = await e2eDb()("kids")
    .insert({
      user_id: owner.id,
      name: "Noah",
      birth_date: "2022-05-06",
      relationship: "Dad",
      created_at: new Date(start).toISOString(),
    })
    .returning("id");
  const kidId = Number(typeof kid === "object" ? kid.id : kid);
  const logIds: number[] = [];
  for (let i = 0; i < count; i++) {
    const at = new Date(start + i * 1000).toISOString();
    const [log] = await e2eDb()("daily_logs")
      .insert({ kid_id: kidId, title: `Moment ${i + 1}`, content: `Day ${i + 1}.`, created_at: at, updated_at: at })
      .returning("id");
    logIds.push(Number(typeof log === "object" ? log.id : log));
  }
  return { kidId, logIds };
}
