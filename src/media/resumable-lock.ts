// One writer per upload, across every node (CONTRACT §24: two PATCHes at once, the second → 409).
// tus's own lockers let a newer request take the lock from the older one; here a request that
// finds the upload leased to another is refused at once. The lease is a row lock with an expiry in
// PostgreSQL (resumable_uploads.locked_by/lock_until), renewed while the request writes, so a
// node that dies mid-PATCH frees its uploads when the lease runs out. The lease is short: a phone
// whose node died resumes with tus-js-client's default retries (0, 1, 3, 5 s apart: 9 s in all),
// and a dead holder must be gone before they are; a live holder renews it every second.
import { randomUUID } from 'node:crypto';
import type { Lock, Locker, RequestRelease } from '@tus/utils';
import { conflict } from '../shared/errors.js';
import type { ResumableUploadRepository } from './resumable-upload-repository.js';

/** How long a lease lasts without renewal (a dead node's uploads wait this long at most). */
const LEASE_SECONDS = 5;
/** Renewals a lease gets before it would run out: a stalled renewal or two leave it held. */
const RENEW_EVERY_MS = 1000;

export const uploadBusy = () => conflict('upload.error.busy', 'Another request is writing to this upload; ask for its offset (HEAD) and resume');

export class LeaseLocker implements Locker {
  constructor(private readonly uploads: ResumableUploadRepository) {}

  newLock(id: string): Lock {
    return new LeaseLock(this.uploads, id);
  }
}

class LeaseLock implements Lock {
  private readonly holder = randomUUID();
  private renewal: NodeJS.Timeout | null = null;

  constructor(
    private readonly uploads: ResumableUploadRepository,
    private readonly id: string,
  ) {}

  async lock(_signal: AbortSignal, stopWriting: RequestRelease): Promise<void> {
    if (!(await this.uploads.takeLease(this.id, this.holder, LEASE_SECONDS))) throw uploadBusy();
    this.renewal = setInterval(() => {
      this.uploads.renewLease(this.id, this.holder, LEASE_SECONDS).then(
        (held) => {
          // The lease ran out (the database was out of reach) and may be someone else's now:
          // this request stops writing (what it wrote stays).
          if (!held) void stopWriting();
        },
        () => undefined,
      );
    }, RENEW_EVERY_MS);
    this.renewal.unref();
  }

  async unlock(): Promise<void> {
    if (this.renewal) clearInterval(this.renewal);
    this.renewal = null;
    await this.uploads.releaseLease(this.id, this.holder);
  }
}

/** For requests that only read (HEAD): the offset is the file's size, readable at any time. */
export const readOnlyLocker: Locker = {
  newLock: () => ({ lock: async () => undefined, unlock: async () => undefined }),
};
