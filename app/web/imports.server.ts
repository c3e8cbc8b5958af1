import { data, href, redirect } from "react-router";
import { refusalStatus } from "~/api/refusal.server";
import { BodyFailure } from "~/forms/parse-body.server";
import { parseId } from "~/lib/request.server";
import { ARCHIVE_FIELD } from "~/imports/archive.server";
import { readArchiveBody } from "~/imports/body.server";
import { importArchive, KID_FIELD } from "~/imports/imports.server";
import { SERVER_ERROR_MESSAGE } from "~/lib/messages";

// The "Move in" form's action (docs/decisions/0066-imports.md): the archive and the kid a Takeout
// album is for, then the import, then the result page (post, redirect, get); or the form again
// with the errors on its fields (400; 413 past the size; 429 past the hourly limit).

export type ImportFormErrors = { errors: Record<string, string[]>; kidId: string };

export async function importFormAction(request: Request, userId: number) {
  const body = await readArchiveBody(request);
  if (body instanceof BodyFailure)
    return data<ImportFormErrors>({ errors: { [ARCHIVE_FIELD]: [body.message] }, kidId: "" }, { status: body.status });
  const kidValue = body.fields[KID_FIELD] ?? "";
  if (body.problem) {
    await body.file?.discard();
    return data<ImportFormErrors>({ errors: { [ARCHIVE_FIELD]: [body.problem] }, kidId: kidValue }, { status: 400 });
  }
  const done = await importArchive(userId, body.file, { kidId: parseId(kidValue) });
  if (done.ok) return redirect(href("/settings/import/:importId", { importId: String(done.importId) }), 303);
  const errors = done.fieldErrors ?? { [ARCHIVE_FIELD]: [done.message ?? SERVER_ERROR_MESSAGE] };
  const headers = done.retryAfterSeconds ? { "Retry-After": String(done.retryAfterSeconds) } : undefined;
  return data<ImportFormErrors>({ errors, kidId: kidValue }, { status: refusalStatus(done), headers });
}
