/**
 * A user id as clients send it: 7, "7", " 7 ", "07", 7.0 all mean user 7. Anything else
 * (negative, fractional, not a number at all) is null. Its own module so that the models of
 * friendships and of co-parents can both use it (a friendship's end ends co-parenting).
 */
export function parseUserId(value: unknown): number | null {
  let n: number;
  if (typeof value === "number") n = value;
  else if (typeof value === "string" && /^\s*\+?\d+(\.0*)?\s*$/.test(value)) n = Number(value.trim());
  else return null;
  return Number.isSafeInteger(n) && n > 0 ? n : null;
}
