// A tiny HTTP/1.1 client over node:net, for requests that fetch cannot express: any method, any
// request-target (absolute-form, "//host", malformed %-encoding), any Host header (or none),
// chunked bodies without Content-Length, a Content-Length the body never reaches.
import net from "node:net";

export type RawResponse = {
  status: number;
  /** Lower-case names; repeated headers joined with ", " (Set-Cookie kept apart in `cookies`). */
  headers: Record<string, string>;
  cookies: string[];
  body: Buffer;
};

export type RawBody =
  | { kind: "none" }
  /** Sent as is, after the head (the head says what it likes about its length). */
  | { kind: "bytes"; data: Buffer }
  /** Sent with Transfer-Encoding: chunked (added to the head), in chunks of `chunkSize`. */
  | { kind: "chunked"; data: Buffer; chunkSize?: number };

export type RawRequest = {
  method: string;
  target: string;
  /** Header lines in order; `Host` is not added for you. */
  headers: [string, string][];
  body?: RawBody;
  /** HEAD answers carry no body whatever their Content-Length says. */
  expectNoBody?: boolean;
};

/**
 * Sends one request on a fresh connection and resolves with the first complete final response.
 * The body keeps being written while the answer comes (a server may answer before it has read
 * everything); once the answer is complete the connection is closed by us.
 */
export function rawRequest(port: number, req: RawRequest, failAfterMs = 60_000): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1");
    let buffer = Buffer.alloc(0);
    let settled = false;
    const finish = (error: Error | null, response?: RawResponse) => {
      if (settled) return;
      settled = true;
      clearTimeout(guard);
      socket.destroy();
      if (error) reject(error);
      else resolve(response!);
    };
    // a safety net for a server that never answers, not part of any expected behaviour
    const guard = setTimeout(() => finish(new Error(`no answer within ${failAfterMs} ms`)), failAfterMs);

    const tryParse = (ended: boolean) => {
      for (;;) {
        const headEnd = buffer.indexOf("\r\n\r\n");
        if (headEnd < 0) {
          if (ended) finish(new Error(`connection closed before a response head (${buffer.length} bytes)`));
          return;
        }
        const lines = buffer.subarray(0, headEnd).toString("latin1").split("\r\n");
        const statusLine = /^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? "");
        if (!statusLine) return finish(new Error(`bad status line: ${JSON.stringify(lines[0])}`));
        const status = Number(statusLine[1]);
        const headers: Record<string, string> = {};
        const cookies: string[] = [];
        for (const line of lines.slice(1)) {
          const colon = line.indexOf(":");
          if (colon < 0) continue;
          const name = line.slice(0, colon).trim().toLowerCase();
          const value = line.slice(colon + 1).trim();
          if (name === "set-cookie") cookies.push(value);
          headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
        }
        const rest = buffer.subarray(headEnd + 4);
        if (status >= 100 && status < 200) {
          buffer = rest; // an interim answer (100 Continue): the final one follows
          continue;
        }
        const done = (body: Buffer) => finish(null, { status, headers, cookies, body });
        if (req.expectNoBody || status === 204 || status === 304) return done(Buffer.alloc(0));
        if (/\bchunked\b/i.test(headers["transfer-encoding"] ?? "")) {
          const body = dechunk(rest);
          if (body) return done(body);
          if (ended) finish(new Error("connection closed inside a chunked body"));
          return;
        }
        if (headers["content-length"] !== undefined) {
          const length = Number(headers["content-length"]);
          if (rest.length >= length) return done(rest.subarray(0, length));
          if (ended) finish(new Error("connection closed before the end of the body"));
          return;
        }
        if (ended) return done(rest);
        return;
      }
    };

    socket.on("data", (chunk) => {
      buffer = Buffer.concat([buffer, chunk]);
      tryParse(false);
    });
    socket.on("end", () => tryParse(true));
    socket.on("close", () => tryParse(true));
    socket.on("error", (error) => {
      // a server may close while we still write (EPIPE, ECONNRESET) after a complete answer
      tryParse(true);
      finish(error);
    });
    socket.on("connect", () => {
      const body = req.body ?? { kind: "none" };
      const headLines = [`${req.method} ${req.target} HTTP/1.1`, ...req.headers.map(([n, v]) => `${n}: ${v}`)];
      if (body.kind === "chunked") headLines.push("Transfer-Encoding: chunked");
      socket.write(Buffer.from(headLines.join("\r\n") + "\r\n\r\n", "latin1"));
      if (body.kind === "bytes") socket.write(body.data);
      if (body.kind === "chunked") {
        const size = body.chunkSize ?? 64 * 1024;
        for (let i = 0; i < body.data.length; i += size) {
          const part = body.data.subarray(i, i + size);
          socket.write(`${part.length.toString(16)}\r\n`);
          socket.write(part);
          socket.write("\r\n");
        }
        socket.write("0\r\n\r\n");
      }
    });
  });
}

/** The body of a complete chunked message, or null while it is incomplete. */
function dechunk(data: Buffer): Buffer | null {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = data.indexOf("\r\n", at);
    if (lineEnd < 0) return null;
    const size = Number.parseInt(data.subarray(at, lineEnd).toString("latin1"), 16);
    if (!Number.isFinite(size)) return null;
    if (size === 0) return data.indexOf("\r\n", lineEnd + 2) >= 0 ? Buffer.concat(parts) : null;
    if (data.length < lineEnd + 2 + size + 2) return null;
    parts.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}
