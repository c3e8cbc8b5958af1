// The client's address behind proxies (TRUST_PROXY; server/client-address.mjs,
// docs/decisions/0018-shared-limits-and-job-leases.md).
import { describe, expect, it } from "vitest";
import { clientAddress, forwardedHttps, parseTrustProxy, plainAddress } from "../../server/client-address.mjs";

const none = parseTrustProxy(undefined);
const oneHop = parseTrustProxy("1");
const twoHops = parseTrustProxy("2");
const ranges = parseTrustProxy("10.0.0.0/8, 192.0.2.7, fd00::/8");

describe("TRUST_PROXY", () => {
  it("reads nothing, a hop count, or addresses and CIDR ranges", () => {
    for (const off of [undefined, "", " ", "false", "off", "0"]) expect(parseTrustProxy(off)).toEqual({ kind: "none" });
    expect(oneHop).toEqual({ kind: "hops", hops: 1 });
    expect(ranges.kind).toBe("addresses");
  });

  it("refuses what it cannot read, and `true` (which would believe any client)", () => {
    for (const bad of ["true", "yes", "10.0.0.0/33", "10.0.0.0/8/1", "proxy.example", "10.0.0.0/x", "fd00::/129"]) {
      expect(() => parseTrustProxy(bad), bad).toThrow(/TRUST_PROXY/);
    }
  });
});

describe("the client's address", () => {
  it("without TRUST_PROXY is the socket's peer, whatever X-Forwarded-For says", () => {
    expect(clientAddress("203.0.113.9", "198.51.100.1", none)).toBe("203.0.113.9");
    expect(clientAddress("::ffff:203.0.113.9", undefined, none)).toBe("203.0.113.9");
    expect(clientAddress(undefined, "198.51.100.1", none)).toBe("unknown");
  });

  it("with a hop count is the address that many proxies back", () => {
    expect(clientAddress("10.1.1.1", "198.51.100.1", oneHop)).toBe("198.51.100.1");
    // a client that writes its own X-Forwarded-For only adds entries to the left
    expect(clientAddress("10.1.1.1", "6.6.6.6, 198.51.100.1", oneHop)).toBe("198.51.100.1");
    expect(clientAddress("10.1.1.1", "6.6.6.6, 198.51.100.1, 10.2.2.2", twoHops)).toBe("198.51.100.1");
    // fewer entries than hops: the leftmost there is
    expect(clientAddress("10.1.1.1", "198.51.100.1", twoHops)).toBe("198.51.100.1");
    expect(clientAddress("10.1.1.1", undefined, oneHop)).toBe("10.1.1.1");
    // several headers, as Node joins them
    expect(clientAddress("10.1.1.1", ["6.6.6.6", "198.51.100.1"], oneHop)).toBe("198.51.100.1");
  });

  it("with addresses walks back through the trusted proxies to the first address that is not one", () => {
    expect(clientAddress("10.1.1.1", "6.6.6.6, 198.51.100.1, 10.9.9.9", ranges)).toBe("198.51.100.1");
    expect(clientAddress("192.0.2.7", "198.51.100.1", ranges)).toBe("198.51.100.1");
    expect(clientAddress("fd00::5", "2001:db8::1", ranges)).toBe("2001:db8::1");
    // the peer is not a trusted proxy: its header is not believed
    expect(clientAddress("203.0.113.9", "198.51.100.1", ranges)).toBe("203.0.113.9");
    // every entry a proxy: the leftmost
    expect(clientAddress("10.1.1.1", "10.2.2.2", ranges)).toBe("10.2.2.2");
  });

  it("stops at an entry that is not an address, at the last good one (never a made-up key)", () => {
    expect(clientAddress("10.1.1.1", "198.51.100.1, garbage", oneHop)).toBe("10.1.1.1");
    expect(clientAddress("10.1.1.1", "garbage-key-42, 10.2.2.2", ranges)).toBe("10.2.2.2");
    expect(clientAddress("10.1.1.1", "", oneHop)).toBe("10.1.1.1");
  });

  it("writes addresses one way: no port, no brackets, IPv4-mapped IPv6 as IPv4, lower case", () => {
    expect(plainAddress(" 198.51.100.1:5555 ")).toBe("198.51.100.1");
    expect(plainAddress("[2001:DB8::1]:443")).toBe("2001:db8::1");
    expect(plainAddress("::FFFF:198.51.100.1")).toBe("198.51.100.1");
    expect(plainAddress("unknown")).toBeNull();
  });
});

describe("X-Forwarded-Proto", () => {
  it("is believed only from a trusted proxy: the first entry, written by the proxy the client reached", () => {
    expect(forwardedHttps("127.0.0.1", "https", none)).toBe(false);
    expect(forwardedHttps("127.0.0.1", "https", oneHop)).toBe(true);
    expect(forwardedHttps("127.0.0.1", "HTTPS , http", oneHop)).toBe(true);
    expect(forwardedHttps("127.0.0.1", "http, https", oneHop)).toBe(false);
    expect(forwardedHttps("127.0.0.1", undefined, oneHop)).toBe(false);
    expect(forwardedHttps("::ffff:10.1.2.3", "https", ranges)).toBe(true);
    expect(forwardedHttps("198.51.100.9", "https", ranges)).toBe(false); // not one of the proxies
  });
});
