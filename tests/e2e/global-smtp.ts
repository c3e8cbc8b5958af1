import http from "node:http";
import { startTestSmtp } from "../smtp-server";

// Playwright's global setup (playwright.config.ts): a real SMTP server on loopback, in the runner's
// own process, for the whole run. The e2e server is pointed at it with SMTP_URL, so every message
// the app sends goes out through nodemailer over SMTP, as in production. The specs run in worker
// processes; they read what arrived through a small read-only HTTP window on loopback
// (E2E_SMTP_INBOX, GET → [{to, raw}]), polled with expect.poll (tests/e2e/mail.ts).
//
// Playwright starts the web server before the global setup, so the SMTP port is fixed in the
// config (E2E_SMTP_PORT); the app's mail queue retries anything sent before this listens.

export default async function globalSetup() {
  const port = Number(process.env.E2E_SMTP_PORT);
  if (!Number.isInteger(port) || port <= 0) throw new Error("E2E_SMTP_PORT is not set (playwright.config.ts sets it)");
  const smtp = await startTestSmtp({ port });
  const inbox = http.createServer((request, response) => {
    if (request.method !== "GET") {
      response.writeHead(405).end();
      return;
    }
    response.writeHead(200, { "Content-Type": "application/json" });
    response.end(JSON.stringify(smtp.received.map((m) => ({ to: m.envelopeTo, raw: m.raw }))));
  });
  await new Promise<void>((resolve) => inbox.listen(0, "127.0.0.1", () => resolve()));
  const address = inbox.address();
  // the workers are started after this and inherit the runner's environment
  process.env.E2E_SMTP_INBOX = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}/`;
  return async () => {
    // a worker's keep-alive fetch must not hold the close
    inbox.closeAllConnections();
    await new Promise<void>((resolve) => inbox.close(() => resolve()));
    await smtp.close();
  };
}
