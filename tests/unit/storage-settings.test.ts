// The photo store's settings (server/env.mjs; README "Configuration"): disk by default, S3 with
// STORAGE=s3 and the S3_* variables, and a clear start-up error for an incomplete S3 setup.
import { afterEach, describe, expect, it } from "vitest";
import { readEnv } from "../../server/env.mjs";

const NAMES = [
  "STORAGE",
  "S3_BUCKET",
  "S3_ENDPOINT",
  "S3_REGION",
  "S3_ACCESS_KEY_ID",
  "S3_SECRET_ACCESS_KEY",
  "S3_FORCE_PATH_STYLE",
  "S3_PREFIX",
];
const saved = Object.fromEntries(NAMES.map((n) => [n, process.env[n]]));

function withEnv(values: Record<string, string>) {
  for (const n of NAMES) delete process.env[n];
  Object.assign(process.env, values);
  return readEnv().storage;
}

afterEach(() => {
  for (const n of NAMES) {
    if (saved[n] === undefined) delete process.env[n];
    else process.env[n] = saved[n];
  }
});

describe("storage settings", () => {
  it("disk is the default", () => {
    expect(withEnv({})).toEqual({ kind: "disk" });
    expect(withEnv({ STORAGE: "disk", S3_BUCKET: "ignored" })).toEqual({ kind: "disk" });
  });

  it("STORAGE=s3 with every setting", () => {
    expect(
      withEnv({
        STORAGE: "s3",
        S3_BUCKET: "family-photos",
        S3_ENDPOINT: "http://127.0.0.1:9000",
        S3_REGION: "eu-central-1",
        S3_ACCESS_KEY_ID: "AKIAEXAMPLE",
        S3_SECRET_ACCESS_KEY: "very-secret",
        S3_FORCE_PATH_STYLE: "true",
        S3_PREFIX: "/sweet-moments/",
      }),
    ).toEqual({
      kind: "s3",
      bucket: "family-photos",
      endpoint: "http://127.0.0.1:9000",
      region: "eu-central-1",
      accessKeyId: "AKIAEXAMPLE",
      secretAccessKey: "very-secret",
      forcePathStyle: true,
      prefix: "sweet-moments/",
    });
  });

  it("STORAGE=s3 defaults: us-east-1, virtual-hosted style, no endpoint, no prefix, the SDK's credential chain", () => {
    expect(withEnv({ STORAGE: "s3", S3_BUCKET: "b" })).toEqual({
      kind: "s3",
      bucket: "b",
      endpoint: null,
      region: "us-east-1",
      accessKeyId: null,
      secretAccessKey: null,
      forcePathStyle: false,
      prefix: "",
    });
  });

  it("a clear start-up error for what is missing or wrong, never showing the secret", () => {
    expect(() => withEnv({ STORAGE: "s3" })).toThrow(
      "STORAGE=s3 needs S3_BUCKET: the name of the bucket that holds the photos.",
    );
    expect(() => withEnv({ STORAGE: "s3", S3_BUCKET: " " })).toThrow("STORAGE=s3 needs S3_BUCKET");
    expect(() => withEnv({ STORAGE: "minio" })).toThrow('STORAGE must be "disk" or "s3", not "minio".');
    expect(() => withEnv({ STORAGE: "s3", S3_BUCKET: "b", S3_ENDPOINT: "localhost:9000" })).toThrow(
      "S3_ENDPOINT must be an http(s) URL",
    );
    let message = "";
    try {
      withEnv({ STORAGE: "s3", S3_BUCKET: "b", S3_SECRET_ACCESS_KEY: "very-secret" });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain("set both S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY, or neither");
    expect(message).not.toContain("very-secret");
  });
});
