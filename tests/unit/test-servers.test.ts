// The test servers themselves must close while a client is still in the middle of a request, or a
// file's teardown waits past its hook budget (a race that fails a CI run at random).
import net from "node:net";
import { describe, expect, it } from "vitest";
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
