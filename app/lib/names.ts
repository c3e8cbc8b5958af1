// How people are named on screen, on the server and in the browser alike (pure functions). A name
// is always one line, even one saved before names had to be (app/lib/one-line.ts).
import { oneLine } from "./one-line";

type Names = { first_name?: string | null; last_name?: string | null };

/** "First Last" from whichever parts there are; "" when there are none. */
export function fullName(user: Names): string {
  return oneLine([user.first_name, user.last_name].filter(Boolean).join(" ")).trim();
}

/** "First Last", or the username for accounts made on the older sign-up page. */
export function displayName(user: Names & { username: string }): string {
  return fullName(user) || oneLine(user.username);
}

/** "Mia", "Mia and Leo", "Mia, Leo and Ada": names in a sentence. */
export function listText(items: string[]): string {
  if (items.length <= 1) return items[0] ?? "";
  return `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
}
