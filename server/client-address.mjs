// @ts-check
// The client's address, for the abuse limits (docs/decisions/0018-shared-limits-and-job-leases.md).
// Without TRUST_PROXY: the socket's peer, always; X-Forwarded-For is whatever the client wrote and
// is ignored. Behind proxies, TRUST_PROXY says which of them to believe (read once, server/env.mjs):
//   TRUST_PROXY=1                       one proxy in front: the client is the last address it added
//   TRUST_PROXY=2                       two proxies: the second-to-last address, and so on
//   TRUST_PROXY=10.0.0.0/8,192.0.2.7    the proxies' addresses: walking X-Forwarded-For from the
//                                       right, the first address that is not one of them
// An entry that is not an IP address stops the walk at the last good one (never a made-up key).
import net from "node:net";

/** @typedef {{ kind: "none" } | { kind: "hops", hops: number } | { kind: "addresses", list: net.BlockList, text: string }} TrustProxy */

/**
 * TRUST_PROXY's value: unset, empty, `false` or `0`: no proxy is trusted; a count of proxies; or a
 * comma-separated list of addresses and CIDR ranges. Anything else stops the start with a message.
 * @param {string | undefined} value
 * @returns {TrustProxy}
 */
export function parseTrustProxy(value) {
  const text = (value ?? "").trim();
  if (text === "" || /^(false|off|no|0)$/i.test(text)) return { kind: "none" };
  if (/^\d+$/.test(text)) return { kind: "hops", hops: Number(text) };
  if (/^(true|on|yes)$/i.test(text)) {
    throw new Error(
      "TRUST_PROXY=true would believe any X-Forwarded-For: set the number of proxies in front (e.g. 1) or their addresses (CIDRs).",
    );
  }
  const list = new net.BlockList();
  for (const part of text
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean)) {
    const [ip = "", bits, extra] = part.split("/");
    const type = net.isIPv4(ip) ? "ipv4" : net.isIPv6(ip) ? "ipv6" : null;
    const max = type === "ipv4" ? 32 : 128;
    if (!type || extra !== undefined || (bits !== undefined && (!/^\d+$/.test(bits) || Number(bits) > max))) {
      throw new Error(
        `TRUST_PROXY: ${JSON.stringify(part)} is not an IP address or CIDR range (e.g. 10.0.0.0/8, 192.0.2.7, fd00::/8).`,
      );
    }
    if (bits === undefined) list.addAddress(ip, type);
    else list.addSubnet(ip, Number(bits), type);
  }
  return { kind: "addresses", list, text };
}

/**
 * An address as written by a socket or a proxy, plain (IPv4-mapped IPv6 as IPv4, no port or
 * brackets, lower case), or null when it is not an IP address.
 * @param {string} raw
 * @returns {string | null}
 */
export function plainAddress(raw) {
  let a = raw.trim();
  if (a.startsWith("[")) a = a.slice(1, a.indexOf("]") > 0 ? a.indexOf("]") : undefined);
  else if (/^\d{1,3}(\.\d{1,3}){3}:\d+$/.test(a)) a = a.slice(0, a.lastIndexOf(":"));
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(a);
  if (mapped) a = mapped[1] ?? a;
  return net.isIP(a) ? a.toLowerCase() : null;
}

/**
 * The client's address for a request from `remote` (the socket's peer) carrying `forwardedFor`
 * (X-Forwarded-For, as Node gives it: several headers joined by ", ").
 * @param {string | undefined} remote
 * @param {string | string[] | undefined} forwardedFor
 * @param {TrustProxy} trust
 * @returns {string}
 */
export function clientAddress(remote, forwardedFor, trust) {
  const socket = plainAddress(remote ?? "") ?? "unknown";
  if (trust.kind === "none" || !forwardedFor || socket === "unknown") return socket;
  const header = Array.isArray(forwardedFor) ? forwardedFor.join(",") : forwardedFor;
  // nearest first: the proxy that talks to us added the last entry
  const hops = header.split(",").reverse();
  let client = socket;
  if (trust.kind === "hops") {
    for (const hop of hops.slice(0, trust.hops)) {
      const next = plainAddress(hop);
      if (!next) break;
      client = next;
    }
    return client;
  }
  const isProxy = (/** @type {string} */ a) => trust.list.check(a, net.isIPv4(a) ? "ipv4" : "ipv6");
  if (!isProxy(socket)) return socket;
  for (const hop of hops) {
    const next = plainAddress(hop);
    if (!next) break;
    client = next;
    if (!isProxy(next)) break;
  }
  return client;
}

/**
 * Whether the request came over https: a trusted proxy in front (TRUST_PROXY: the socket's peer is
 * one of its addresses, or a count of proxies is set) says so in X-Forwarded-Proto. Of a list
 * ("https, http", proxies that append), the first entry, written by the proxy the client reached.
 * Without TRUST_PROXY the header is the client's own words and is ignored (the server itself
 * speaks plain http).
 * @param {string | undefined} remote
 * @param {string | string[] | undefined} forwardedProto
 * @param {TrustProxy} trust
 */
export function forwardedHttps(remote, forwardedProto, trust) {
  if (trust.kind === "none" || !forwardedProto) return false;
  if (trust.kind === "addresses") {
    const socket = plainAddress(remote ?? "");
    if (!socket || !trust.list.check(socket, net.isIPv4(socket) ? "ipv4" : "ipv6")) return false;
  }
  const header = Array.isArray(forwardedProto) ? forwardedProto.join(",") : forwardedProto;
  return header.split(",")[0]?.trim().toLowerCase() === "https";
}
