// Test-only helpers for the kids and moments specs: kids and moments made through the API, and bulk
// moments for paging written straight into the e2e database.
import sharp from "sharp";
import { type APIRequestContext, expect, type Locator } from "@playwright/test";
import { e2eDb } from "./e2e-db";

/** `count` moments without photos, one minute apart, titled "Moment 1" (oldest) … "Moment N". */
export async function insertMoments(kidId: number, count: number): Promise<void> {
  const start = Date.parse("2024-01-01T00:00:00.000Z");
  const rows = Array.from({ length: count }, (_, i) => {
    const at = new Date(start + i * 60_000).toISOString();
    return {
      kid_id: kidId,
      title: `Moment ${i + 1}`,
      content: `Content ${i + 1}`,
      taken_on: at.slice(0, 10),
      created_at: at,
      updated_at: at,
    };
  });
  await e2eDb()("daily_logs").insert(rows);
}

export type FilePayload = { name: string; mimeType: string; buffer: Buffer };

/** A real JPEG made with sharp, ready for setInputFiles or a multipart request. */
export async function jpegFile(
  name = "photo.jpg",
  width = 160,
  height = 120,
  background = "#c33",
): Promise<FilePayload> {
  const buffer = await sharp({ create: { width, height, channels: 3, background } })
    .jpeg()
    .toBuffer();
  return { name, mimeType: "image/jpeg", buffer };
}

export const textFile: FilePayload = {
  name: "notes.txt",
  mimeType: "text/plain",
  buffer: Buffer.from("not a picture"),
};

/** The signed-in user's id (the request shares the page's cookies). */
export async function myId(request: APIRequestContext): Promise<number> {
  const res = await request.get("/api/auth/");
  if (!res.ok()) throw new Error(`not signed in: ${res.status()}`);
  return (await res.json()).id;
}

export async function apiCreateKid(
  request: APIRequestContext,
  kid: { name: string; birth_date: string; relationship: string },
  image?: FilePayload,
): Promise<{ id: number; name: string }> {
  const res = await request.post("/api/kids/new", { multipart: { ...kid, ...(image ? { image } : {}) } });
  if (res.status() !== 201) throw new Error(`kid not created: ${res.status()} ${await res.text()}`);
  return res.json();
}

/** A moment through the API: one photo, or several with their alt texts (repeated `image` parts). */
export async function apiCreateMoment(
  request: APIRequestContext,
  kidId: number,
  moment: { title: string; content: string },
  image: FilePayload | { file: FilePayload; alt: string }[],
): Promise<{ id: number; title: string }> {
  let multipart: FormData | Record<string, string | FilePayload> = { ...moment, image: image as FilePayload };
  if (Array.isArray(image)) {
    const form = new FormData();
    for (const [k, v] of Object.entries(moment)) form.append(k, v);
    image.forEach(({ file, alt }, i) => {
      form.append("image", new File([new Uint8Array(file.buffer)], file.name, { type: file.mimeType }));
      form.append(`alt_${i + 1}`, alt);
    });
    multipart = form;
  }
  const res = await request.post(`/api/kids/${kidId}/daily_logs/new`, { multipart });
  if (res.status() !== 201) throw new Error(`moment not created: ${res.status()} ${await res.text()}`);
  return res.json();
}

/** Opens a listed moment's "Manage" disclosure (its Update and Delete), unless it is already open. */
export async function manage(moment: Locator, title: string) {
  const details = moment.locator("details.moment__manage");
  if ((await details.getAttribute("open")) === null) {
    await moment.locator("summary", { hasText: `Manage ${title}` }).click();
  }
  await expect(details).toHaveAttribute("open", "");
}
