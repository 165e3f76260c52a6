// s3rver (a fake S3 server used only by tests) ships no types; this covers what the tests use.
declare module 's3rver' {
  import type { Server } from 'node:http';
  import type { AddressInfo } from 'node:net';

  interface S3rverOptions {
    address?: string;
    port?: number;
    silent?: boolean;
    directory?: string;
    resetOnClose?: boolean;
    allowMismatchedSignatures?: boolean;
    vhostBuckets?: boolean;
    configureBuckets?: { name: string; configs?: (string | Buffer)[] }[];
  }

  interface S3rverContext {
    method: string;
    path: string;
    query: Record<string, string | undefined>;
    status: number;
    body: unknown;
  }

  class S3rver {
    constructor(options?: S3rverOptions);
    /** Koa's middleware stack; tests prepend to it to fill gaps in s3rver's S3 API. */
    middleware: ((ctx: S3rverContext, next: () => Promise<void>) => Promise<void> | void)[];
    store: {
      rootDirectory: string;
      getResourcePath(bucket: string, key: string | undefined, resource: string): string;
    };
    httpServer?: Server;
    run(): Promise<AddressInfo>;
    close(): Promise<void>;
  }

  export default S3rver;
}
