// The test servers themselves: they must close while a client is still in the middle of a request,
// or a file's teardown waits past its hook budget; the S3 server must have stored an object whole
// before it answers its PUT (both were races that failed CI runs at random).
import fs from "node:fs";
import net from "node:net";
import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { startS3 } from "../s3-server";
import { startTestSmtp } from "../smtp-server";

/** Speaks SMTP up to the end of DATA and then waits for an answer that never comes. */
async function hangInData(url: string): Promise<net.Socket> {
  const { port } = new URL(url);
  const socket = net.connect(Number(port), "127.0.0.1");
  socket.on("error", () => {}); // the server ends it
  let buffer = "";
  const next = (code: string) =>
    new Promise<void>((resolve) => {
      const check = () => {
        if (!buffer.split("\r\n").some((line) => line.startsWith(`${code} `))) return;
        buffer = "";
        socket.off("data", onData);
        resolve();
      };
      const onData = (chunk: Buffer) => {
        buffer += chunk.toString("utf8");
        check();
      };
      socket.on("data", onData);
      check();
    });
  await next("220");
  socket.write("EHLO test\r\n");
  await next("250");
  socket.write("MAIL FROM:<a@example.com>\r\n");
  await next("250");
  socket.write("RCPT TO:<b@example.com>\r\n");
  await next("250");
  socket.write("DATA\r\n");
  await next("354");
  socket.write("Subject: held\r\n\r\nbody\r\n.\r\n");
  return socket;
}

describe("the test SMTP server", () => {
  it("closes with a client hanging in DATA, well within a hook's budget", { timeout: 10_000 }, async () => {
    const smtp = await startTestSmtp();
    const held = smtp.holdNext();
    const socket = await hangInData(smtp.url);
    await held;
    const closedByServer = new Promise<void>((resolve) => socket.once("close", () => resolve()));
    await smtp.close();
    await closedByServer;
    expect(socket.destroyed).toBe(true);
  });
});

describe("the test S3 server", () => {
  it("has written an object whole when its PUT is answered, from a buffer or a stream", async () => {
    const s3 = await startS3();
    try {
      const store = s3.store;
      const data = Buffer.alloc(48 * 1024 * 1024, 7);
      for (const [key, content] of [
        ["whole/buffer", data],
        ["whole/stream", Readable.from([data.subarray(0, 16 * 1024 * 1024), data.subarray(16 * 1024 * 1024)])],
      ] as const) {
        const { size } = await store.putObject({ bucket: s3.bucket, key, content, metadata: {} });
        // what the GET that follows a PUT reads its size and ranges from
        expect([size, fs.statSync(store.getResourcePath(s3.bucket, key, "object")).size]).toEqual([
          data.length,
          data.length,
        ]);
      }
    } finally {
      await s3.stop();
    }
  });
});
