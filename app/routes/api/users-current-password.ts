import { apiRoute } from "~/api/route.server";
import { json } from "~/api/responses.server";
import { apiRefusal } from "~/api/refusal.server";
import { readAccountBody } from "~/api/account.server";
import { PasswordSchema } from "~/forms/account";
import { changePassword } from "~/models/account.server";
import { linkSignInAt } from "~/models/sessions.server";
import { sessionToken } from "~/web/auth.server";

// PUT /api/users/current/password: change (current_password) or set the caller's password; every
// other session of the account ends (the caller's stays). No current_password is needed for an
// account without a password, or within 10 minutes of a sign-in by an emailed link (decision 0061).
const route = apiRoute({
  PUT: async ({ request }, user) => {
    const input = await readAccountBody(request, PasswordSchema, ["current_password", "password", "confirmPassword"]);
    const token = await sessionToken(request);
    const saved = await changePassword(user.id, input, { linkSignInAt: await linkSignInAt(token), keepToken: token });
    return saved.ok
      ? json({
          message: "Your password is saved. Every other session is signed out.",
          other_sessions_ended: saved.endedSessions,
        })
      : apiRefusal(saved);
  },
});

export const loader = route.loader;
export const action = route.action;
