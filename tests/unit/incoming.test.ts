// The server's own checks before the app (server/incoming.mjs) and its body limit
// (server/request-body.mjs). The whole server is exercised by tests/unit/bad-input.test.ts.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRejectionLog, decodablePath, isValidHost, targetPath } from "../../server/incoming.mjs";
import { limitedBody } from "../../server/request-body.mjs";
import { parseAllowedHosts } from "../../server/env.mjs";
import { rawRequest } from "./support/raw-http";

describe("request line and Host", () => {
  it("accepts names, addresses and ports; refuses anything else", () => {
    for (const ok of [
      "localhost",
      "localhost:3000",
      "127.0.0.1:8080",
      "[::1]:3000",
      "family.example.org",
      "my_box",
      "a-b.example.",
    ]) {
      expect(isValidHost(ok), ok).toBe(true);
    }
    for (const bad of [
      "",
      "exa mple.org",
      "[::1",
      "example.org:99999",
      "user@example.org",
      "example.org/x",
      "évil.example",
      "-a.example",
      "a:b:c",
    ]) {
      expect(isValidHost(bad), bad).toBe(false);
    }
  });

  it("keeps only the path of a request-target: never another host", () => {
    expect(targetPath("/a/b?c=1")).toBe("/a/b?c=1");
    expect(targetPath("//evil.example/api/auth/login")).toBe("//evil.example/api/auth/login");
    expect(targetPath("http://evil.example/api/auth/login?x=1")).toBe("/api/auth/login?x=1");
    expect(targetPath("*")).toBeNull();
    expect(targetPath("evil.example:443")).toBeNull();
    // built on our origin, a "//" path stays on our origin
    expect(new URL("http://ours.example" + targetPath("//evil.example/x")).origin).toBe("http://ours.example");
  });

  it("takes the % of a segment that does not decode literally, and leaves the rest", () => {
    expect(decodablePath("/kids/%ZZ/update")).toBe("/kids/%25ZZ/update");
    expect(decodablePath("/a/%E0%A4%A/caf%C3%A9?q=%ZZ")).toBe("/a/%25E0%25A4%25A/caf%C3%A9?q=%ZZ");
    expect(decodablePath("/%")).toBe("/%25");
    expect(decodablePath("/fine/%20")).toBe("/fine/%20");
  });
});

describe("ALLOWED_HOSTS", () => {
  it("takes names and addresses as a browser's address bar shows them, and stops the start on anything else", () => {
    expect(parseAllowedHosts(undefined)).toEqual([]);
    expect(parseAllowedHosts(" localhost, 192.168.1.5 ,::1,[fd00::2],Photos.Example.org.")).toEqual([
      "localhost",
      "192.168.1.5",
      "[::1]",
      "[fd00::2]",
      "photos.example.org",
    ]);
    expect(() => parseAllowedHosts("*")).toThrow(/DNS rebinding/);
    for (const bad of [
      "localhost:3000",
      "http://localhost",
      "[::1]:3000",
      "example.org/x",
      "user@example.org",
      "évil.example",
      "exa mple.org",
    ]) {
      expect(() => parseAllowedHosts(bad), bad).toThrow(/ALLOWED_HOSTS: .* is not a host name or address/);
    }
  });
});

describe("the log of refused requests", () => {
  it("writes one line per request, at most N a minute, and counts what it left out", () => {
    const lines: string[] = [];
    let now = 0;
    const log = createRejectionLog({ perMinute: 2, write: (line) => lines.push(line), now: () => now });
    const entry = {
      status: 400,
      method: "GET",
      target: "/x\n[fake] line",
      reason: "malformed Host header",
      address: "10.0.0.1",
    };
    for (let i = 0; i < 5; i++) log(entry);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toBe('[refused] 400 GET "/x\\n[fake] line": malformed Host header from 10.0.0.1');
    now = 60_000;
    log(entry);
    expect(lines).toHaveLength(3);
    expect(lines[2]).toContain("(3 more refused requests not logged)");
  });
});

describe("the body limit", () => {
  let server: http.Server;
  let port = 0;
  beforeAll(async () => {
    server = http.createServer(async (req, res) => {
      let tooLarge = false;
      const body = limitedBody(req, {
        limit: 1000,
        drainLimit: 100_000,
        tooLarge: () => new Error("too large"),
        onTooLarge: () => (tooLarge = true),
      });
      let answer: string;
      try {
        answer = `read ${(await new Response(body.stream).text()).length}`;
      } catch (error) {
        answer = `failed: ${(error as Error).message}, flagged ${tooLarge}`;
      }
      res.on("close", () => body.discard());
      res.end(answer);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const post = (body: Parameters<typeof rawRequest>[1]["body"], headers: [string, string][] = []) =>
    rawRequest(port, { method: "POST", target: "/", headers: [["Host", "localhost"], ...headers], body });

  it("gives a body up to its limit", async () => {
    const res = await post({ kind: "bytes", data: Buffer.alloc(1000, 97) }, [["Content-Length", "1000"]]);
    expect(res.body.toString()).toBe("read 1000");
    expect((await post({ kind: "chunked", data: Buffer.alloc(1000, 97), chunkSize: 100 })).body.toString()).toBe(
      "read 1000",
    );
  });

  it("fails past it, whatever the framing, and the client still gets the answer", async () => {
    const length = await post({ kind: "bytes", data: Buffer.alloc(5000, 97) }, [["Content-Length", "5000"]]);
    expect(length.body.toString()).toBe("failed: too large, flagged true");
    const chunked = await post({ kind: "chunked", data: Buffer.alloc(50_000, 97), chunkSize: 300 });
    expect(chunked.body.toString()).toBe("failed: too large, flagged true");
  });
});
