// The erasure of a deleted account (CONTRACT §22): a durable job (account_erasures) that any node's
// worker claims with a lease. The erasure is a list of steps, one per kind of record; each is
// idempotent (it erases whatever of its kind is still there) and is recorded done when through, so
// a worker that dies halfway leaves a job that another claim (after the lease) goes on with from
// the first step not done — running a half-done step again is harmless. Adding a kind of record
// is one line in `steps`. Nothing personal is logged or kept in the job row (ids and step names).
import type { AppContext } from '../context.js';
import type { UserRepository } from '../auth/index.js';
import type { SessionRepository } from '../auth/index.js';
import type { ContentRepository } from '../content/index.js';
import type { UploadedFileRepository } from '../media/index.js';
import type { CommentRepository } from '../comments/index.js';
import type { ChatRepository } from '../chat/index.js';
import type { FollowRepository } from '../follows/index.js';
import type { NotificationRepository } from '../notifications/index.js';
import type { PushRepository } from '../push/index.js';
import type { SavedSearchRepository } from '../saved-searches/index.js';
import type { PresenceRepository } from '../presence/index.js';
import type { IdempotencyRepository } from '../payments/index.js';
import type { SocialAccountRepository } from '../publishing/index.js';
import type { OAuthStateRepository } from '../publishing/index.js';
import type { PublicationRepository } from '../publishing/index.js';
import type { StatsRepository } from '../stats/index.js';
import type { TwoFactorRepository } from '../twofactor/index.js';
import type { SettingsRepository } from '../settings/index.js';
import type { MediaRemoval } from '../media/index.js';
import { avatarDirRel } from '../media/index.js';
import { newId } from '../shared/ids.js';
import type { AuditLog } from '../audit/index.js';
import type { ErasureRepository } from './erasure-repository.js';
import type { BlockRepository } from '../blocks/index.js';
import type { ReportRepository } from '../moderation/index.js';

/** The repositories the erasure reaches: every table that holds something of a user. */
export interface ErasureTables {
  erasures: ErasureRepository;
  users: UserRepository;
  sessions: SessionRepository;
  contents: ContentRepository;
  uploadedFiles: UploadedFileRepository;
  comments: CommentRepository;
  chat: ChatRepository;
  follows: FollowRepository;
  notifications: NotificationRepository;
  push: PushRepository;
  savedSearches: SavedSearchRepository;
  presence: PresenceRepository;
  idempotencyKeys: IdempotencyRepository;
  socialAccounts: SocialAccountRepository;
  oauthStates: OAuthStateRepository;
  publications: PublicationRepository;
  stats: StatsRepository;
  twoFactor: TwoFactorRepository;
  settings: SettingsRepository;
  blocks: BlockRepository;
  reports: ReportRepository;
}

/** One kind of record to erase: idempotent. */
export interface ErasureStep {
  name: string;
  run: (userId: string) => Promise<void>;
}

/** A failed step's job is claimed again after this long. */
const RETRY_IN_SECONDS = 30;

export class AccountErasure {
  private readonly worker = `erasure-${newId()}`;
  readonly steps: ErasureStep[];
  /** Steps added by other domains (blocks, reports, exports, the audit log) before the final ones. */
  private readonly extra: ErasureStep[] = [];

  constructor(
    private readonly app: AppContext,
    private readonly t: ErasureTables,
    private readonly mediaRemoval: MediaRemoval,
    private readonly auditLog: AuditLog,
  ) {
    this.steps = [
      { name: 'sessions', run: (id) => t.sessions.deleteAllOf(id) },
      {
        // Items were deleted at once; here their media files go (as for any deleted item), then the rows.
        name: 'content',
        run: async (id) => {
          for (const contentId of await t.contents.awaitingMediaRemovalOf(id)) await mediaRemoval.withdraw(contentId);
          await t.contents.deleteWithdrawnOf(id);
        },
      },
      {
        name: 'uploaded_files',
        run: async (id) => {
          for (const rel of await t.uploadedFiles.pathsOf(id)) await app.media.delete(rel);
          await t.uploadedFiles.deleteAllOf(id);
        },
      },
      { name: 'avatar', run: (id) => app.media.deletePrefix(avatarDirRel(id)) },
      { name: 'comments', run: (id) => t.comments.eraseAllBy(id) },
      { name: 'messages', run: (id) => t.chat.eraseAllBy(id) },
      {
        name: 'follows',
        run: async (id) => {
          for (const other of await t.follows.deleteAllOf(id)) await app.events.publishAndWait('user.changed', { userId: other });
        },
      },
      {
        name: 'reactions',
        run: async (id) => {
          for (const contentId of await t.contents.deleteReactionsBy(id)) {
            await app.events.publishAndWait('reaction.changed', { contentId, userId: id, reacted: false });
          }
        },
      },
      { name: 'saved_searches', run: (id) => t.savedSearches.deleteAllOf(id) },
      { name: 'push_subscriptions', run: (id) => t.push.deleteAllOf(id) },
      { name: 'notifications', run: (id) => t.notifications.deleteAllOf(id) },
      { name: 'two_factor', run: (id) => t.twoFactor.deleteAllOf(id) },
      { name: 'settings', run: (id) => t.settings.deleteOf(id) },
      { name: 'presence', run: (id) => t.presence.deleteOf(id) },
      { name: 'statistics', run: (id) => t.stats.deleteAllOf(id) },
      {
        name: 'publishing',
        run: async (id) => {
          await t.publications.deleteAllOf(id);
          await t.oauthStates.deleteAllOf(id);
          await t.socialAccounts.deleteAllOf(id);
        },
      },
      { name: 'idempotency_keys', run: (id) => t.idempotencyKeys.deleteAllOf(id) },
      {
        name: 'blocks',
        run: async (id) => {
          await t.blocks.deleteAllOf(id);
        },
      },
      // Reports the user made are kept (the target was reported) without who made them or their note.
      { name: 'reports', run: (id) => t.reports.anonymiseReporter(id) },
      // Payments and the ledger stay (accounting): they hold amounts, currencies and references,
      // no name or number, and point at the anonymised users row.
      { name: 'user', run: (id) => t.users.anonymise(id) },
    ];
  }

  /** Adds a step (another domain's kind of record), run after the built-in ones. Idempotent, like every step. */
  addStep(step: ErasureStep): void {
    this.extra.push(step);
  }

  /** Every step, in order; the audit entry last, once everything is erased. */
  allSteps(): ErasureStep[] {
    return [...this.steps, ...this.extra, { name: 'audit', run: (id) => this.audit(id) }];
  }

  /** Appends `account.erase` (ids only, by the service itself) unless a run that died before recording the step did. */
  private async audit(userId: string): Promise<void> {
    const { items } = await this.auditLog.list({ target_id: userId, limit: 100 });
    if (items.some((e) => e.action === 'account.erase')) return;
    await this.auditLog.append({ actorId: null, action: 'account.erase', targetType: 'user', targetId: userId });
  }

  /**
   * Claims due erasures one by one and runs them until none is left (or `shouldStop`). Answers how
   * many were finished. Called by the worker loop of every node (jobs/account-erasure.ts).
   */
  async runDue(shouldStop: () => boolean = () => false): Promise<number> {
    let finished = 0;
    const lease = this.app.config.JOB_LEASE_SECONDS;
    while (!shouldStop()) {
      const job = await this.t.erasures.claimNext(this.worker, lease);
      if (!job) return finished;
      try {
        let held = true;
        for (const step of this.allSteps()) {
          if (job.steps_done.includes(step.name)) continue;
          if (shouldStop()) return finished;
          await step.run(job.user_id);
          // Recorded done, and the claim extended; false when another worker took the job over.
          held = await this.t.erasures.stepDone(job.user_id, this.worker, step.name, lease);
          if (!held) break;
          this.app.log.info({ userId: job.user_id, step: step.name }, 'erasure step done');
          await this.pauseForTests();
        }
        if (!held) continue;
        await this.t.erasures.finish(job.user_id, this.worker);
        this.app.log.info({ userId: job.user_id, attempts: job.attempts }, 'account erased');
        finished++;
      } catch (err) {
        this.app.log.error({ err: (err as Error).message, userId: job.user_id }, 'an erasure step failed; it is retried');
        await this.t.erasures.failed(job.user_id, this.worker, (err as Error).message, RETRY_IN_SECONDS).catch(() => undefined);
      }
    }
    return finished;
  }

  /** ERASURE_STEP_PAUSE_MS (tests only): a pause after each step, so a test can kill a node halfway. */
  private async pauseForTests(): Promise<void> {
    const ms = this.app.config.ERASURE_STEP_PAUSE_MS;
    if (ms > 0) await new Promise((resolve) => setTimeout(resolve, ms));
  }
}
