import type SharpModule from "sharp";

// sharp (libvips) is loaded on the first photo a process handles, not at start: the native library
// and its bindings add about 20 MB to every process that loads it, and a process serving pages,
// the API and stored photo files never needs it (docs/decisions/0036-lean-processes.md).

type Sharp = typeof SharpModule;
let loading: Promise<Sharp> | null = null;

/** sharp, configured once for this app. */
export function loadSharp(): Promise<Sharp> {
  loading ??= import("sharp").then(({ default: sharp }) => {
    // The libvips operation cache only helps when the same input is processed repeatedly; every
    // upload is new, so it would just hold memory.
    sharp.cache(false);
    return sharp;
  });
  return loading;
}
