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

  export default class S3rver {
    constructor(options: S3rverOptions);
    httpServer?: Server;
    run(): Promise<AddressInfo>;
    close(): Promise<void>;
  }
}
