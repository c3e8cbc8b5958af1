// The little of s3rver (an in-process S3-compatible server, devDependency) that the tests use.
declare module "s3rver" {
  import type { AddressInfo } from "node:net";
  import type { Server } from "node:http";

  export type S3rverOptions = {
    port?: number;
    address?: string;
    directory: string;
    silent?: boolean;
    resetOnClose?: boolean;
    configureBuckets?: { name: string; configs?: (string | Buffer)[] }[];
  };

  /** An object as s3rver's store receives it: its body is a Buffer or the request stream. */
  export type S3rverObject = {
    bucket: string;
    key: string;
    content: Buffer | NodeJS.ReadableStream;
    metadata: Record<string, string>;
  };

  /** s3rver's filesystem store (lib/stores/filesystem.js). */
  export type S3rverStore = {
    getResourcePath(bucket: string, key: string, resource: string): string;
    putObject(object: S3rverObject): Promise<{ size: number; md5: string }>;
    putMetadata(bucket: string, key: string, metadata: Record<string, string>, md5: string): Promise<void>;
  };

  export default class S3rver {
    constructor(options: S3rverOptions);
    httpServer?: Server;
    store: S3rverStore;
    run(): Promise<AddressInfo>;
    close(): Promise<void>;
  }
}
