import { apiRoute } from "~/api/route.server";
import { apiError, json } from "~/api/responses.server";
import { parseId } from "~/lib/request.server";
import { KID_NOT_FOUND, serializeMoment } from "~/api/serializers-kids.server";
import { apiRefusal } from "~/api/refusal.server";
import { viewKid } from "~/models/kids.server";
import { decodeCursor, type Cursor } from "~/models/moment-cursors.server";
import { listMoments } from "~/models/moments.server";

const MAX_LIMIT = 100;

// GET /api/kids/{kidId}/daily_logs: newest first; all of them, or `?limit=N&before=<cursor>` one
// page. `next` is the cursor of the following page (null on the last one).
const route = apiRoute({
  GET: async ({ params, request }, user) => {
    const kidId = parseId(params.kidId);
    if (!kidId) return apiError(404, KID_NOT_FOUND);
    const query = new URL(request.url).searchParams;
    const limitParam = query.get("limit");
    const beforeParam = query.get("before");
    let problem: string | null = null;
    let limit: number | undefined;
    let before: Cursor | null = null;
    if (limitParam !== null) {
      if (/^[1-9][0-9]{0,5}$/.test(limitParam)) limit = Math.min(Number(limitParam), MAX_LIMIT);
      else problem = "limit must be a whole number from 1 to 100";
    }
    if (beforeParam !== null && !problem) {
      before = decodeCursor(beforeParam);
      if (!before) problem = "before is not a valid cursor";
    }
    if (problem) {
      // 404 and 403 come before 400
      const view = await viewKid(user.id, kidId);
      return view.ok ? apiError(400, problem) : apiRefusal(view);
    }
    const page = await listMoments(user.id, kidId, { limit, before });
    if (!page.ok) return apiRefusal(page);
    return json({
      daily_logs: page.moments.map((m) => serializeMoment(m, { parent: page.isParent })),
      next: page.next,
    });
  },
});

export const loader = route.loader;
export const action = route.action;
