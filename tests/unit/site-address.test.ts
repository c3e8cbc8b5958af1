// The site's address, the Secure cookie and slow clients, against the real server (server/index.mjs
// on a fresh build, on this test file's database), over raw sockets so the Host and every other
// header are exactly what a client chose (docs/decisions/0038-the-site-address.md):
// - a Host the site does not answer for gets a 400 page naming ALLOWED_HOSTS, and nothing is mailed;
// - no mail, redirect, export or API answer carries a host from a request header, even for a
//   request addressed to an allowed alias with forged forwarding headers;
// - the session cookie is Secure when the request came over https through a trusted proxy;
// - a client that sends its head or its body slowly is answered 408 and disconnected at the
//   timeout, however long it goes on sending.
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../app/lib/db.server";
import { dailyDigestDueNow } from "../kit/digests";
import { startTestSmtp, type ReceivedMail, type TestSmtp } from "../smtp-server";
import { cookieFor, makeUser } from "../helpers";
import { insertFriendship, insertKid, insertMoment } from "./friends-fixtures";
import { buildApp, startBuiltServer, type BuiltServer } from "./support/built-server";
import { rawRequest, type RawResponse } from "./support/raw-http";
import { unzip } from "./support/unzip";

let buildDir: string;
let smtp: TestSmtp;
/** ALLOWED_HOSTS with an alias, behind one trusted proxy, mail over SMTP, digests looked for every second. */
let site: BuiltServer;
/** No ALLOWED_HOSTS, no proxy trusted; a 1 s header timeout and a 2 s request timeout. */
let strict: BuiltServer;

beforeAll(async () => {
  smtp = await startTestSmtp();
  buildDir = await buildApp();
  [site, strict] = await Promise.all([
    startBuiltServer(buildDir, {
      SMTP_URL: smtp.url,
      ALLOWED_HOSTS: "127.0.0.1,alias.example",
      TRUST_PROXY: "1",
      DIGEST_CHECK_SECONDS: "1",
    }),
    startBuiltServer(buildDir, { HEADERS_TIMEOUT_SECONDS: "1", REQUEST_TIMEOUT_SECONDS: "2" }),
  ]);
}, 240_000);

afterAll(async () => {
  await Promise.all([site?.stop(), strict?.stop()]);
  await smtp?.close();
});

/** The site's address without ORIGIN: the one the server prints at start. */
const siteOrigin = () => `http://localhost:${site.port}`;

type Send = {
  method?: string;
  /** Origin-form ("/x") or absolute-form ("http://other.example/x"). */
  target: string;
  host: string;
  cookie?: string;
  json?: unknown;
  form?: Record<string, string>;
  headers?: [string, string][];
};

function send(server: BuiltServer, s: Send): Promise<RawResponse> {
  const headers: [string, string][] = [["Host", s.host]];
  if (s.cookie) headers.push(["Cookie", s.cookie]);
  let body: Buffer | null = null;
  if (s.json !== undefined) {
    body = Buffer.from(JSON.stringify(s.json));
    headers.push(["Content-Type", "application/json"]);
  } else if (s.form) {
    body = Buffer.from(new URLSearchParams(s.form).toString());
    headers.push(["Content-Type", "application/x-www-form-urlencoded"]);
  }
  if (body) headers.push(["Content-Length", String(body.length)]);
  headers.push(...(s.headers ?? []));
  return rawRequest(server.port, {
    method: s.method ?? (body ? "POST" : "GET"),
    target: s.target,
    headers,
    body: body ? { kind: "bytes", data: body } : { kind: "none" },
  });
}

/** Resolves with the messages to `address` once there are `count` of them. */
async function mailTo(address: string, count = 1): Promise<ReceivedMail[]> {
  for (;;) {
    const found = smtp.received.filter((m) => m.envelopeTo.includes(address));
    if (found.length >= count) return found;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const rowsTo = async (address: string) =>
  Number((await db()("mail_messages").where("to_address", address).count({ n: "*" }).first())!.n);

describe("the site's names", { timeout: 120_000 }, () => {
  it("a Host the site does not answer for gets a 400 naming ALLOWED_HOSTS, and no sign-in link is mailed; the health checks answer any Host", async () => {
    const victim = await makeUser();
    const attacker = `attacker.example:${site.port}`;

    const api = await send(site, { target: "/api/auth/magic-link", host: attacker, json: { email: victim.email } });
    expect(api.status).toBe(400);
    expect(JSON.parse(api.body.toString()).errors.message).toMatch(/attacker\.example.*ALLOWED_HOSTS.*ORIGIN/);

    const page = await send(site, {
      target: "/login/email",
      host: attacker,
      form: { email: victim.email },
      headers: [["Origin", `http://${attacker}`]],
    });
    expect(page.status).toBe(400);
    expect(page.headers["content-type"]).toMatch(/^text\/html/);
    expect(page.headers["content-security-policy"]).toBeTruthy();
    expect(page.body.toString()).toContain("ALLOWED_HOSTS");

    // an absolute-form target naming the site changes nothing: the Host is what the browser was at
    const absolute = await send(site, {
      target: `${siteOrigin()}/api/auth/magic-link`,
      host: attacker,
      json: { email: victim.email },
    });
    expect(absolute.status).toBe(400);
    expect(await rowsTo(victim.email)).toBe(0);

    for (const path of ["/healthz", "/readyz"])
      expect((await send(site, { target: path, host: attacker })).status).toBe(200);
    // the site's own name (ORIGIN unset: localhost) and the names of ALLOWED_HOSTS are answered
    for (const host of [
      `localhost:${site.port}`,
      `LOCALHOST:${site.port}`,
      `127.0.0.1:${site.port}`,
      "alias.example",
    ]) {
      expect((await send(site, { target: "/login", host })).status, host).toBe(200);
    }
    expect((await send(strict, { target: "/login", host: `alias.example:${strict.port}` })).status).toBe(400);
  });

  it("no mail, redirect, export or API answer carries a host from a request header", async () => {
    const alias = `alias.example:${site.port}`;
    // whatever a client or a misconfigured proxy may add: none of it names the site
    const forged: [string, string][] = [
      ["Origin", `http://${alias}`],
      ["X-Forwarded-Host", "evil.example"],
      ["X-Forwarded-Server", "evil.example"],
      ["X-Original-Host", "evil.example"],
      ["X-Host", "evil.example"],
      ["Forwarded", "host=evil.example;proto=https"],
    ];
    const at = (s: Omit<Send, "host" | "headers">) => send(site, { ...s, host: alias, headers: forged });
    const answers: RawResponse[] = [];
    const track = async (r: Promise<RawResponse>) => {
      const answer = await r;
      answers.push(answer);
      return answer;
    };

    const parent = await makeUser();
    const parentCookie = await cookieFor(parent);
    const reader = await makeUser();
    await insertFriendship(parent, reader, "accepted");
    await insertMoment(await insertKid(parent, "Lou"), "First steps");

    // a sign-in link, by the API and by the page (with an absolute-form target naming another host)
    expect((await track(at({ target: "/api/auth/magic-link", json: { email: parent.email } }))).status).toBe(202);
    expect(
      (
        await track(
          at({ target: "http://evil.example/login/email?reset=1", form: { email: reader.email, reset: "1" } }),
        )
      ).status,
    ).toBe(303);
    // an invitation by the API (its link in the answer and in the mail to the invited address)
    const invited = await track(
      at({
        target: "/api/invites",
        cookie: parentCookie,
        json: { email: "grandma@example.com", note: "Come and see Lou" },
      }),
    );
    expect(invited.status).toBe(201);
    const inviteUrl: string = JSON.parse(invited.body.toString()).url;
    expect(inviteUrl.startsWith(`${siteOrigin()}/invite/`)).toBe(true);
    // an invitation by the friends page: its link shown on the page after the redirect
    const made = await track(
      at({ target: "/current/friends", cookie: parentCookie, form: { intent: "invite", note: "For Opa" } }),
    );
    expect(made.status).toBe(303);
    const flash = made.cookies.map((c) => c.split(";")[0] ?? "").find((c) => c.startsWith("sm_new_link="))!;
    const shown = (
      await track(at({ target: "/current/friends", cookie: `${parentCookie}; ${flash}` }))
    ).body.toString();
    expect(shown).toContain(`${siteOrigin()}/invite/`);
    // an invitation answered with the address of an existing account: a sign-in link to that address
    const token = inviteUrl.split("/").pop()!;
    expect(
      (await track(at({ target: `/invite/${token}`, form: { name: "Someone", email: reader.email } }))).status,
    ).toBe(303);
    // an invitation answered with a new address: an account without a password, which confirms its deletion by mail
    const second = JSON.parse(
      (await track(at({ target: "/api/invites", cookie: parentCookie, json: {} }))).body.toString(),
    ).url as string;
    const joined = await track(
      at({ target: `/invite/${second.split("/").pop()}`, form: { name: "Opa Karl", email: "karl@example.com" } }),
    );
    expect(joined.status).toBe(303);
    const karlCookie = joined.cookies.map((c) => c.split(";")[0] ?? "").find((c) => c.startsWith("sm_session="))!;
    expect(
      (await track(at({ target: "/settings/delete", cookie: karlCookie, form: { intent: "email-link" } }))).status,
    ).toBe(303);
    // an email change: the notice to the old address, with its undo link
    const mover = await makeUser();
    const moved = await track(
      at({
        target: "/api/users/current",
        method: "PUT",
        cookie: await cookieFor(mover),
        json: {
          username: mover.username,
          email: `moved-${mover.id}@example.com`,
          first_name: mover.first_name,
          last_name: mover.last_name,
          current_password: "secret1",
        },
      }),
    );
    expect(moved.status).toBe(200);
    // redirects: to the log-in page, and after a log-in
    expect((await track(at({ target: "/my-kids-list" }))).status).toBe(302);
    expect(
      (await track(at({ target: "/login", form: { email: parent.email, password: "secret1", redirectTo: "/feed" } })))
        .status,
    ).toBe(302);
    // the export
    const exported = await track(at({ target: "/api/export", cookie: parentCookie }));
    expect(exported.status).toBe(200);
    const files = await unzip(exported.body);
    expect(files.size).toBeGreaterThan(1);
    // a digest (no request at all): the site's address, with the port the server listens on
    // news from the start of time: the moment above is news however long the steps before took
    await dailyDigestDueNow(reader.id, new Date(0).toISOString());

    const mails = [
      ...(await mailTo(parent.email)),
      // the password reset, the sign-in link of the invitation answered with the address, the digest
      ...(await mailTo(reader.email, 3)),
      ...(await mailTo("grandma@example.com")),
      ...(await mailTo("karl@example.com")),
      ...(await mailTo(mover.email)),
    ];
    expect(mails.filter((m) => m.parsed.subject === "Your Sweet Moments email address was changed")).toHaveLength(1);
    expect(mails.filter((m) => m.parsed.subject?.includes("daily"))).toHaveLength(1);
    for (const mail of mails) {
      expect(mail.raw, mail.parsed.subject).not.toMatch(/alias\.example|evil\.example/);
      expect(mail.parsed.text, mail.parsed.subject).toContain(`${siteOrigin()}/`);
    }
    for (const answer of answers) {
      const location = answer.headers["location"];
      if (location !== undefined) expect(location).toMatch(/^\/(?!\/)/);
      if (answer !== exported) expect(answer.body.toString()).not.toMatch(/alias\.example|evil\.example/);
    }
    for (const [name, bytes] of files)
      expect(bytes.toString("latin1"), name).not.toMatch(/alias\.example|evil\.example|localhost|127\.0\.0\.1/);
  });
});

describe("the Secure cookie", { timeout: 60_000 }, () => {
  const logIn = async (server: BuiltServer, headers: [string, string][]) => {
    const user = await makeUser();
    const answer = await send(server, {
      target: "/api/auth/login",
      host: `127.0.0.1:${server.port}`,
      json: { email: user.email, password: "secret1" },
      headers,
    });
    expect(answer.status).toBe(200);
    return answer.cookies.find((c) => c.startsWith("sm_session="))!;
  };

  it("is Secure when a trusted proxy says the request came over https, on the API and the log-in page", async () => {
    expect(await logIn(site, [["X-Forwarded-Proto", "https"]])).toMatch(/;\s*Secure/i);
    expect(await logIn(site, [["X-Forwarded-Proto", "http"]])).not.toMatch(/;\s*Secure/i);
    expect(await logIn(site, [])).not.toMatch(/;\s*Secure/i);

    const user = await makeUser();
    const host = `127.0.0.1:${site.port}`;
    const page = await send(site, {
      target: "/login",
      host,
      form: { email: user.email, password: "secret1" },
      // the browser was on the https page: its form post says so, and is same-origin
      headers: [
        ["X-Forwarded-Proto", "https"],
        ["Origin", `https://${host}`],
      ],
    });
    expect(page.status).toBe(302);
    expect(page.cookies.find((c) => c.startsWith("sm_session="))).toMatch(/;\s*Secure/i);
  });

  it("is not made Secure by a client's own X-Forwarded-Proto (no proxy trusted)", async () => {
    expect(await logIn(strict, [["X-Forwarded-Proto", "https"]])).not.toMatch(/;\s*Secure/i);
  });
});

/**
 * Opens a connection that sends `first`, then `next` every 100 ms for as long as the connection
 * lets it, like a client that never stops; it does not close its side when the server closes its
 * own (a half-close). Resolves with what the server answered and whether the server ended the
 * connection, or after `giveUpMs` with the connection still open.
 */
function dripUntilClosed(
  port: number,
  first: string,
  next: string,
  giveUpMs = 60_000,
): Promise<{ answer: string; closedByServer: boolean }> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: "127.0.0.1", allowHalfOpen: true });
    let answer = "";
    let drip: NodeJS.Timeout | undefined;
    const done = (closedByServer: boolean) => {
      clearInterval(drip);
      clearTimeout(giveUp);
      socket.destroy();
      resolve({ answer, closedByServer });
    };
    const giveUp = setTimeout(() => done(false), giveUpMs);
    socket.setEncoding("latin1");
    socket.on("data", (chunk: string) => (answer += chunk));
    socket.on("error", () => {}); // a write after the server closed: the close follows
    socket.on("close", () => done(true));
    socket.on("connect", () => {
      socket.write(first);
      drip = setInterval(() => socket.write(next), 100);
    });
  });
}

describe("slow clients", { timeout: 90_000 }, () => {
  it("a client sending one header line after another is answered 408 and disconnected at the header timeout", async () => {
    const { answer, closedByServer } = await dripUntilClosed(
      strict.port,
      `GET / HTTP/1.1\r\nHost: 127.0.0.1:${strict.port}\r\n`,
      "X-Slow: 1\r\n",
    );
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(closedByServer).toBe(true);
  });

  it("a client sending its body slowly is answered 408 and disconnected at the request timeout", async () => {
    const head = `POST /api/auth/login HTTP/1.1\r\nHost: 127.0.0.1:${strict.port}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"email":"`;
    const { answer, closedByServer } = await dripUntilClosed(strict.port, head, "a");
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(closedByServer).toBe(true);
  });
});
