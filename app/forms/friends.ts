import { z } from "zod";

// The friend search box (docs/spec.md §5 "Friend search"): a GET form, so its one field is `q`.
export const SEARCH_REQUIRED = "Please enter a name to search.";

export const FriendSearchSchema = z.object({
  q: z.string({ error: SEARCH_REQUIRED }).trim().min(1, SEARCH_REQUIRED),
});
