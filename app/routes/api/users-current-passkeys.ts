import { apiRoute } from "~/api/route.server";
import { apiError, json } from "~/api/responses.server";
import { apiRefusal } from "~/api/refusal.server";
import { readFields } from "~/api/read-body.server";
import { serializePasskey } from "~/api/serializers-account.server";
import { listPasskeys, registerPasskey } from "~/models/passkeys.server";
import { sessionToken } from "~/web/auth.server";

// GET /api/users/current/passkeys: the caller's passkeys, oldest first.
// POST {response, name}: keeps a new passkey, the browser's answer to
// POST /api/users/current/passkeys/options from this same session.
const route = apiRoute({
  GET: async (_args, user) => json({ passkeys: (await listPasskeys(user.id)).map(serializePasskey) }),
  POST: async ({ request }, user) => {
    const body = await readFields(request);
    const token = await sessionToken(request);
    if (!token || !body.response || typeof body.response !== "object") return apiError(400, "No passkey was sent.");
    const saved = await registerPasskey(user.id, token, body.response as never, body.name);
    return saved.ok ? json(serializePasskey(saved.passkey), { status: 201 }) : apiRefusal(saved);
  },
});

export const loader = route.loader;
export const action = route.action;
