// What the routes that stream stored files (photos, clips) answer for a file that is not there or
// not the viewer's: one plain 404, never cached, that tells "missing" and "not yours" apart in
// nothing (docs/decisions/0012-refusal-and-access-module.md).

export function storedFileNotFound(): Response {
  return new Response("Not found", {
    status: 404,
    headers: {
      "Content-Type": "text/plain; charset=utf-8",
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
    },
  });
}
