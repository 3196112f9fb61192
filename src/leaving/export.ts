// Taking one's data (CONTRACT §22). POST /user/export asks for an export (one a day: 429 until a
// day after the last one, not scaled by RATE_LIMIT_SCALE); a durable job (data_exports, claimed
// with a lease by any node's worker, jobs/data-export.ts) writes a ZIP of JSON files, one per kind
// of record, streamed to the node's scratch disk by yazl, then put in the media store under a dot
// prefix the media server never serves (.exports/<id>.zip, so any node can serve the download). Once ready
// the owner is notified (`export.ready`) and may download it with their bearer token for 24 hours
// (GET /user/export/{id}/download); then it is removed and reads `expired`. Anyone else: 404.
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import yazl from 'yazl';
import type { AppContext } from '../context.js';
import type { ContentRepository } from '../content/index.js';
import type { ContentSerialiser } from '../content/index.js';
import type { NotificationService } from '../notifications/index.js';
import type { SettingsService } from '../settings/index.js';
import { notFound, tooManyRequests } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { exportRelPath } from '../media/index.js';
import type { ExportRepository, ExportRow } from './export-repository.js';

/** One export a day per user. */
const EXPORT_EVERY_SECONDS = 24 * 3600;
/** How long a ready export can be downloaded. */
export const EXPORT_LIFETIME_SECONDS = 24 * 3600;
const RETRY_IN_SECONDS = 30;
const EXPIRE_BATCH = 100;

/** The files of an export, in order: every kind of record CONTRACT §22 lists. */
export const EXPORT_FILES = [
  'profile.json',
  'settings.json',
  'sessions.json',
  'content.json',
  'comments.json',
  'messages.json',
  'follows.json',
  'blocks.json',
  'reactions.json',
  'saved_searches.json',
  'notifications.json',
  'payments.json',
  'campaigns.json',
] as const;

export interface ExportView {
  export_id: string;
  status: 'pending' | 'ready' | 'expired';
  url?: string;
  expires_at?: string;
}

export class DataExports {
  private readonly worker = `export-${newId()}`;

  constructor(
    private readonly app: AppContext,
    private readonly exports: ExportRepository,
    private readonly contents: ContentRepository,
    private readonly serialiser: ContentSerialiser,
    private readonly settings: SettingsService,
    private readonly notifications: NotificationService,
    /** Called once an export is asked for: the workers look at once. */
    private readonly requested: () => void,
  ) {}

  /** POST /user/export. */
  async request(userId: string): Promise<ExportView> {
    const { created, row } = await this.app.database.transaction(async (tx) => {
      const exports = this.exports.in(tx);
      await exports.lockUser(userId);
      return exports.insertUnlessRecent(newId(), userId, EXPORT_EVERY_SECONDS);
    });
    if (!created) {
      const retryAfter = Math.max(1, Math.ceil((row.requested_at.getTime() + EXPORT_EVERY_SECONDS * 1000 - Date.now()) / 1000));
      throw tooManyRequests('export.error.daily_limit', 'One export a day: try again later', { 'Retry-After': String(retryAfter) });
    }
    this.requested();
    return this.view(row);
  }

  /** GET /user/export/{id}: the owner's export, else 404. */
  async status(userId: string, exportId: string): Promise<ExportView> {
    return this.view(await this.owned(userId, exportId));
  }

  /** The media key of a ready export of the owner, else 404. */
  async fileOf(userId: string, exportId: string): Promise<string> {
    const row = await this.owned(userId, exportId);
    if (row.status !== 'ready' || !row.file_path || !row.expires_at || row.expires_at.getTime() <= Date.now()) {
      throw notFound('export.error.not_found', 'No such export ready for download');
    }
    return row.file_path;
  }

  /** The worker: claims pending exports one by one and writes them. Answers how many were made. */
  async runDue(shouldStop: () => boolean = () => false): Promise<number> {
    let made = 0;
    while (!shouldStop()) {
      const job = await this.exports.claimNext(this.worker, this.app.config.JOB_LEASE_SECONDS);
      if (!job) return made;
      const rel = exportRelPath(job.id);
      const file = path.join(this.app.config.tmpDir, `export-${job.id}-${newId()}.zip`);
      try {
        const size = await this.write(job.user_id, file);
        await this.app.media.putFile(rel, file, { move: true });
        const ready = await this.app.database.transaction(async (tx) => {
          if (!(await this.exports.in(tx).markReady(job.id, this.worker, rel, size, EXPORT_LIFETIME_SECONDS))) return false;
          await this.notifications.notify(tx, {
            userId: job.user_id,
            type: 'export.ready',
            actorId: null,
            subject: { type: 'export', id: job.id },
            data: { export_id: job.id },
          });
          return true;
        });
        if (ready) {
          this.notifications.deliverSoon();
          made++;
        }
      } catch (err) {
        this.app.log.error({ err: (err as Error).message, exportId: job.id }, 'a data export failed; it is retried');
        await fs.promises.rm(file, { force: true }).catch(() => undefined);
        await this.app.media.delete(rel).catch(() => undefined);
        await this.exports.failed(job.id, this.worker, (err as Error).message, RETRY_IN_SECONDS).catch(() => undefined);
      }
    }
    return made;
  }

  /** Removes the files of exports past their lifetime; answers how many. */
  async expireDue(): Promise<number> {
    let total = 0;
    for (;;) {
      const rows = await this.exports.expireDue(EXPIRE_BATCH);
      for (const row of rows) if (row.file_path) await this.app.media.delete(row.file_path);
      total += rows.length;
      if (rows.length < EXPIRE_BATCH) return total;
    }
  }

  /** Erasure (CONTRACT §22): the user's exports, rows and files. */
  async eraseAllOf(userId: string): Promise<void> {
    for (const rel of await this.exports.deleteAllOf(userId)) await this.app.media.delete(rel);
  }

  /** Writes the ZIP of the user's records to `file`, a scratch file of this node; answers its size. */
  private async write(userId: string, file: string): Promise<number> {
    await fs.promises.mkdir(path.dirname(file), { recursive: true });
    const partial = `${file}.${newId()}.partial`;
    const zip = new yazl.ZipFile();
    const written = pipeline(zip.outputStream, fs.createWriteStream(partial));
    const add = (name: (typeof EXPORT_FILES)[number], value: unknown) => zip.addBuffer(Buffer.from(JSON.stringify(value, null, 2)), name);
    try {
      const r = this.exports;
      add('profile.json', await r.profile(userId));
      add('settings.json', await this.settings.get(userId));
      add('sessions.json', await r.sessions(userId));
      const items: unknown[] = [];
      for (const id of await r.contentIds(userId)) {
        const row = await this.contents.findLive(id);
        if (row) items.push(this.serialiser.detail(row, { canReadContact: true }));
      }
      add('content.json', items);
      add('comments.json', await r.comments(userId));
      add('messages.json', await r.messagesSent(userId));
      add('follows.json', await r.follows(userId));
      add('blocks.json', await r.blocks(userId));
      add('reactions.json', await r.reactions(userId));
      add('saved_searches.json', await r.savedSearches(userId));
      add('notifications.json', await r.notifications(userId));
      add('payments.json', await r.payments(userId));
      add('campaigns.json', await r.campaigns(userId));
      zip.end();
      await written;
      await fs.promises.rename(partial, file);
      return (await fs.promises.stat(file)).size;
    } catch (err) {
      // End what was started so the file closes, then drop it.
      zip.end();
      await written.catch(() => undefined);
      await fs.promises.rm(partial, { force: true });
      throw err;
    }
  }

  private async owned(userId: string, exportId: string): Promise<ExportRow> {
    const row = await this.exports.find(exportId);
    if (!row || row.user_id !== userId) throw notFound('export.error.not_found', 'No such export');
    return row;
  }

  private view(row: ExportRow): ExportView {
    const expired = row.status === 'expired' || (row.status === 'ready' && row.expires_at !== null && row.expires_at.getTime() <= Date.now());
    if (expired) return { export_id: row.id, status: 'expired' };
    if (row.status === 'ready' && row.expires_at) {
      return {
        export_id: row.id,
        status: 'ready',
        url: `${this.app.config.publicBaseUrl}/auth/api/v1/user/export/${row.id}/download`,
        expires_at: row.expires_at.toISOString(),
      };
    }
    return { export_id: row.id, status: 'pending' };
  }
}
