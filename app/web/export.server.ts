import { createReadableStreamFromReadable } from "@react-router/node";
import { exportZip } from "~/models/export-zip.server";

// "Download all my data" over HTTP, for the settings page's link (/settings/export) and
// GET /api/export alike: the ZIP streamed as it is written (app/models/export-zip.server.ts).
// null: no such user (the caller answers its own 404).

export async function exportResponse(request: Request, userId: number): Promise<Response | null> {
  if (request.method === "HEAD") return new Response(null, { status: 200, headers: headers("export.zip", null) });
  const zip = await exportZip(userId);
  if (!zip) return null;
  // the browser went away: stop reading photos
  request.signal.addEventListener("abort", () => zip.stream.destroy(), { once: true });
  return new Response(createReadableStreamFromReadable(zip.stream), {
    status: 200,
    headers: headers(zip.fileName, zip.entries),
  });
}

function headers(fileName: string, entries: number | null): HeadersInit {
  return {
    "Content-Type": "application/zip",
    "Content-Disposition": `attachment; filename="${fileName.replace(/[^\x20-\x7e]|"/g, "_")}"`,
    "Cache-Control": "private, no-store",
    "X-Content-Type-Options": "nosniff",
    ...(entries === null ? {} : { "X-Export-Entries": String(entries) }),
  };
}
