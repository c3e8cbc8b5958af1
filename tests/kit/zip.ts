import { ZipFile } from "yazl";

/** The bytes of a ZIP that `add` fills (yazl), made in memory: the import and archive tests' archives. */
export async function zipBytes(add: (zip: ZipFile) => void): Promise<Buffer> {
  const zip = new ZipFile();
  add(zip);
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}
