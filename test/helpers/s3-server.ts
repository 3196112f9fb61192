// The S3 API server the test setup starts on loopback (moto's server mode, test/global-setup.ts),
// and what a test needs of it: a bucket of its own, the environment of a node that keeps its media
// there, and the bucket's keys (to check that nothing is left behind). On a developer's machine
// without moto the S3 tests are skipped with a message naming how to install it; CI fails instead.
import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { CreateBucketCommand, ListObjectsV2Command, ListMultipartUploadsCommand, PutBucketPolicyCommand, S3Client } from '@aws-sdk/client-s3';

export const S3_SKIP_MESSAGE = 'S3 tests skipped: moto_server not found (install it: python3 -m pip install "moto[server]")';

/** http://127.0.0.1:PORT of the S3 API server, or '' when none runs. */
export const s3Endpoint = (): string => inject('s3Endpoint');

export const s3Available = (): boolean => s3Endpoint() !== '';

const CREDENTIALS = { accessKeyId: 'test-key', secretAccessKey: 'test-secret' };

export function s3Client(endpoint = s3Endpoint()): S3Client {
  return new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: CREDENTIALS, maxAttempts: 1 });
}

export interface TestBucket {
  name: string;
  /** The settings of a node whose media live in this bucket (`endpoint`: another address of the server, e.g. a proxy). */
  env(endpoint?: string): Record<string, string>;
  /** Every key in the bucket. */
  keys(): Promise<string[]>;
  /** Multipart uploads started and neither completed nor aborted. */
  openMultipartUploads(): Promise<number>;
  /** A bucket policy letting anyone read the keys that match `patterns` (S3 resource wildcards). */
  allowPublicReads(patterns: string[]): Promise<void>;
}

/** A new, empty bucket on the test's S3 API server. */
export async function createTestBucket(): Promise<TestBucket> {
  const name = `revs-test-${randomBytes(5).toString('hex')}`;
  const client = s3Client();
  await client.send(new CreateBucketCommand({ Bucket: name }));
  return {
    name,
    env: (endpoint = s3Endpoint()) => ({
      MEDIA_STORAGE: 's3',
      S3_ENDPOINT: endpoint,
      S3_REGION: 'us-east-1',
      S3_BUCKET: name,
      S3_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
      S3_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
      S3_FORCE_PATH_STYLE: '1',
    }),
    keys: async () => {
      const keys: string[] = [];
      let token: string | undefined;
      do {
        const page = await client.send(new ListObjectsV2Command({ Bucket: name, ContinuationToken: token }));
        for (const o of page.Contents ?? []) if (o.Key) keys.push(o.Key);
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
      return keys.sort();
    },
    allowPublicReads: async (patterns) => {
      const Statement = [{ Effect: 'Allow', Principal: '*', Action: 's3:GetObject', Resource: patterns.map((p) => `arn:aws:s3:::${name}/${p}`) }];
      await client.send(new PutBucketPolicyCommand({ Bucket: name, Policy: JSON.stringify({ Version: '2012-10-17', Statement }) }));
    },
    openMultipartUploads: async () => (await client.send(new ListMultipartUploadsCommand({ Bucket: name }))).Uploads?.length ?? 0,
  };
}
