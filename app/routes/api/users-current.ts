import { apiRoute } from "~/api/route.server";
import { apiError, json } from "~/api/responses.server";
import { apiRefusal } from "~/api/refusal.server";
import { readAccountBody } from "~/api/account.server";
import { serializeAccount } from "~/api/serializers-account.server";
import { DeleteAccountSchema, profileSchema } from "~/forms/account";
import { deleteAccount, getAccount, updateProfile } from "~/models/account.server";
import { linkSignInAt, sessionStartedAt } from "~/models/sessions.server";
import { siteOrigin } from "~/lib/config.server";
import { logOutHeaders, sessionToken } from "~/web/auth.server";

// GET, PUT, DELETE /api/users/current: the caller's own account (docs/api.md, Users).
const route = apiRoute({
  GET: async (_args, user) => {
    const account = await getAccount(user.id);
    return account ? json(serializeAccount(account)) : apiError(404, "User not found");
  },
  PUT: async ({ request }, user) => {
    // the names the account has are taken unchanged (decision 0061)
    const input = await readAccountBody(request, profileSchema(user), [
      "first_name",
      "last_name",
      "username",
      "email",
      "current_password",
    ]);
    const saved = await updateProfile(user.id, input, siteOrigin(), {
      linkSignInAt: await linkSignInAt(await sessionToken(request)),
    });
    if (!saved.ok) return apiRefusal(saved);
    const account = await getAccount(user.id);
    return account ? json(serializeAccount(account)) : apiError(404, "User not found");
  },
  DELETE: async ({ request }, user) => {
    const input = await readAccountBody(request, DeleteAccountSchema, ["password"]);
    const deleted = await deleteAccount(user.id, {
      password: input.password,
      signedInAt: await sessionStartedAt(await sessionToken(request)),
    });
    if (!deleted.ok) return apiRefusal(deleted);
    return json({ message: "Your account is deleted" }, { headers: await logOutHeaders(request) });
  },
});

export const loader = route.loader;
export const action = route.action;
