// The composition root: every repository and every service of the domain is built here, once,
// and handed to the doors into it (http/ routes, realtime/ namespaces, jobs/). Nothing else
// constructs a repository or a service, so each has one instance per node, and each service's
// constructor says which repositories (tables) and services it reaches.
import type { Redis } from 'ioredis';
import type { AppContext } from './context.js';
import type { Config } from './config.js';
import type { Queryable } from './db/client.js';
import { MaintenanceRepository } from './db/maintenance-repository.js';
import { OtpRepository } from './auth/otp-repository.js';
import { SessionRepository } from './auth/session-repository.js';
import { UserRepository } from './auth/user-repository.js';
import { RolesRepository } from './authorization/roles-repository.js';
import { CampaignRepository } from './campaigns/campaign-repository.js';
import { EstimationRepository } from './campaigns/estimation-repository.js';
import { ChatRepository } from './chat/chat-repository.js';
import { CommentRepository } from './comments/comment-repository.js';
import { ContentRepository } from './content/content-repository.js';
import { LiveContentRepository } from './content/live/repository.js';
import { FollowRepository } from './follows/follow-repository.js';
import { BlockRepository } from './blocks/block-repository.js';
import { BlockService } from './blocks/service.js';
import { UploadedFileRepository } from './media/uploaded-file-repository.js';
import { NotificationRepository } from './notifications/notification-repository.js';
import { IdempotencyRepository } from './payments/idempotency-repository.js';
import { LedgerRepository } from './payments/ledger-repository.js';
import { PaymentRepository } from './payments/payment-repository.js';
import { PresenceRepository } from './presence/presence-repository.js';
import { OAuthStateRepository } from './publishing/oauth-state-repository.js';
import { PublicationRepository } from './publishing/publication-repository.js';
import { SocialAccountRepository } from './publishing/social-account-repository.js';
import { PushRepository } from './push/push-repository.js';
import { SavedSearchMatchRepository } from './saved-searches/match-repository.js';
import { SavedSearchRepository } from './saved-searches/saved-search-repository.js';
import { JobRunRepository } from './scheduling/job-run-repository.js';
import { SettingsRepository } from './settings/settings-repository.js';
import { ServiceSecretRepository } from './secrets/service-secret-repository.js';
import { getOrCreateServiceSecret } from './secrets/index.js';
import { ViewerKeys } from './shared/viewer-key.js';
import { StatsRepository } from './stats/stats-repository.js';
import { ViewRepository } from './views/view-repository.js';
import { ViewService } from './views/service.js';
import { createPlaybackStore } from './views/playback-store.js';
import { TwoFactorRepository } from './twofactor/two-factor-repository.js';
import { AccountService } from './auth/accounts.js';
import { AvatarService } from './media/avatar.js';
import { CallerResolver } from './auth/caller.js';
import { createFailedLoginStore } from './auth/failed-login-store.js';
import { LoginGuard } from './auth/login-guard.js';
import { PasswordService } from './auth/password-reset.js';
import { OtpService } from './auth/otp.js';
import { ProfileService } from './auth/profile.js';
import { Revocations } from './auth/revocations.js';
import { IdleTimeout } from './auth/idle-timeout.js';
import { createSessionActivity } from './auth/session-activity.js';
import { SessionService } from './auth/sessions.js';
import { TokenService } from './auth/tokens.js';
import { RolePermissions } from './authorization/role-permissions.js';
import { RoleService } from './authorization/roles.js';
import { StaffReach } from './authorization/staff-reach.js';
import { CampaignService } from './campaigns/service.js';
import { DeliveryRepository } from './campaigns/delivery-repository.js';
import { CampaignDelivery, type Clock } from './campaigns/delivery.js';
import { SponsoredSlot } from './campaigns/sponsored-slot.js';
import { createViewerState } from './campaigns/viewer-state.js';
import { ChatService } from './chat/service.js';
import { CommentService } from './comments/service.js';
import { ContentFeed, ContentListingRepository, FeedPages, ListingIndex, Listings, type ContentRow } from './content/index.js';
import { ContentLiveFeed } from './content/live/feed.js';
import { LiveCounts, type CountWatchers } from './content/live/counts.js';
import { LivePublishes } from './content/live/publishes.js';
import { LiveAudience } from './live/audience.js';
import { SavedSearchMatcher } from './saved-searches/matcher.js';
import { SavedSearchService } from './saved-searches/service.js';
import { ContentSerialiser } from './content/serialise.js';
import { ContentService } from './content/service.js';
import { FollowService } from './follows/service.js';
import { MediaRemoval } from './media/media-removal.js';
import { UploadService } from './media/upload-service.js';
import { ResumableUploadRepository } from './media/resumable-upload-repository.js';
import { ResumableUploads } from './media/resumable-uploads.js';
import { VideoJobRepository } from './media/video-job-repository.js';
import { VideoJobQueue } from './media/video-job-queue.js';
import { VideoProcessor } from './media/video-processor.js';
import { NotificationService } from './notifications/service.js';
import { LoginAlerts } from './notifications/login-alerts.js';
import { WakeUp } from './shared/wake-up.js';
import { createPaymentProvider } from './payments/provider.js';
import { PaymentService } from './payments/service.js';
import { PresenceService } from './presence/service.js';
import { createPresenceStore } from './presence/create-store.js';
import { PublishingService } from './publishing/service.js';
import { PushService, type PresenceProbe } from './push/service.js';
import { OutboundGate, systemResolver, type HostResolver } from './outbound/gate.js';
import { SettingsService } from './settings/service.js';
import { StatsRollup } from './stats/rollup.js';
import { StatsService } from './stats/service.js';
import { ScheduledJobRuns } from './scheduling/job-runs.js';
import { DatabaseMaintenance } from './db/maintenance.js';
import { TwoFactorService } from './twofactor/service.js';
import { ReadModel } from './read-model/read-model.js';
import { createRelay } from './read-model/create-relay.js';
import { ReadModelNoticeRepository } from './read-model/notice-repository.js';
import { ReportRepository } from './moderation/reports-repository.js';
import { ReportService } from './moderation/reports.js';
import { ModerationService } from './moderation/service.js';
import { ErasureRepository } from './leaving/erasure-repository.js';
import { AccountDeletion } from './leaving/deletion.js';
import { AccountErasure } from './leaving/erasure.js';
import { ExportRepository } from './leaving/export-repository.js';
import { DataExports } from './leaving/export.js';
import { AuditLogRepository } from './audit/audit-repository.js';
import { AuditLog } from './audit/audit-log.js';
import { ListingSnapshotRepository } from './content/listing-snapshot-repository.js';
import { IndexSnapshots } from './content/search-index/index-snapshot.js';
import type { SnapshotStart } from './content/search-index/index-sync.js';

/** Every repository, each the only owner of its tables' SQL, built once over the node's database. */
export interface Repositories {
  users: UserRepository;
  sessions: SessionRepository;
  otpCodes: OtpRepository;
  twoFactor: TwoFactorRepository;
  serviceSecrets: ServiceSecretRepository;
  roles: RolesRepository;
  settings: SettingsRepository;
  follows: FollowRepository;
  blocks: BlockRepository;
  contents: ContentRepository;
  listings: ContentListingRepository;
  liveContents: LiveContentRepository;
  uploadedFiles: UploadedFileRepository;
  resumableUploads: ResumableUploadRepository;
  videoJobs: VideoJobRepository;
  comments: CommentRepository;
  chat: ChatRepository;
  notifications: NotificationRepository;
  push: PushRepository;
  presence: PresenceRepository;
  savedSearches: SavedSearchRepository;
  savedSearchMatches: SavedSearchMatchRepository;
  payments: PaymentRepository;
  ledger: LedgerRepository;
  idempotencyKeys: IdempotencyRepository;
  campaigns: CampaignRepository;
  campaignDelivery: DeliveryRepository;
  estimations: EstimationRepository;
  oauthStates: OAuthStateRepository;
  socialAccounts: SocialAccountRepository;
  publications: PublicationRepository;
  stats: StatsRepository;
  views: ViewRepository;
  jobRuns: JobRunRepository;
  maintenance: MaintenanceRepository;
  readModelNotices: ReadModelNoticeRepository;
  reports: ReportRepository;
  erasures: ErasureRepository;
  exports: ExportRepository;
  auditLog: AuditLogRepository;
}

/** The node's repositories over `database`; a service binds one to a transaction with `in(tx)`. */
export function createRepositories(database: Queryable): Repositories {
  return {
    users: new UserRepository(database),
    sessions: new SessionRepository(database),
    otpCodes: new OtpRepository(database),
    twoFactor: new TwoFactorRepository(database),
    serviceSecrets: new ServiceSecretRepository(database),
    roles: new RolesRepository(database),
    settings: new SettingsRepository(database),
    follows: new FollowRepository(database),
    blocks: new BlockRepository(database),
    contents: new ContentRepository(database),
    listings: new ContentListingRepository(database),
    liveContents: new LiveContentRepository(database),
    uploadedFiles: new UploadedFileRepository(database),
    resumableUploads: new ResumableUploadRepository(database),
    videoJobs: new VideoJobRepository(database),
    comments: new CommentRepository(database),
    chat: new ChatRepository(database),
    notifications: new NotificationRepository(database),
    push: new PushRepository(database),
    presence: new PresenceRepository(database),
    savedSearches: new SavedSearchRepository(database),
    savedSearchMatches: new SavedSearchMatchRepository(database),
    payments: new PaymentRepository(database),
    ledger: new LedgerRepository(database),
    idempotencyKeys: new IdempotencyRepository(database),
    campaigns: new CampaignRepository(database),
    campaignDelivery: new DeliveryRepository(database),
    estimations: new EstimationRepository(database),
    oauthStates: new OAuthStateRepository(database),
    socialAccounts: new SocialAccountRepository(database),
    publications: new PublicationRepository(database),
    stats: new StatsRepository(database),
    views: new ViewRepository(database),
    jobRuns: new JobRunRepository(database),
    maintenance: new MaintenanceRepository(database),
    readModelNotices: new ReadModelNoticeRepository(database),
    reports: new ReportRepository(database),
    erasures: new ErasureRepository(database),
    exports: new ExportRepository(database),
    auditLog: new AuditLogRepository(database),
  };
}

export interface Services {
  readModel: ReadModel<ContentRow>;
  /** Ending sessions (and, later, changing what a user may do) so every node refuses them at once. */
  revocations: Revocations;
  sessions: SessionService;
  accounts: AccountService;
  passwords: PasswordService;
  profiles: ProfileService;
  avatars: AvatarService;
  follows: FollowService;
  /** Blocks between users, CONTRACT §21. */
  blocks: BlockService;
  roles: RoleService;
  callers: CallerResolver;
  twoFactor: TwoFactorService;
  settings: SettingsService;
  content: ContentService;
  /** `/all`, `/completed` and the map clusters: one path, answered by the listing index (docs/search.md). */
  listings: Listings;
  /** The per-node listing index (docs/search.md). */
  listingIndex: ListingIndex;
  feed: ContentFeed;
  /** `/feeds` pages, kept in the read model. */
  feedPages: FeedPages;
  liveFeed: ContentLiveFeed;
  /** `content:stats`: which changes count, and at most one per item per second (CONTRACT §15). */
  liveCounts: LiveCounts;
  /** `content.published` once an item's video is processed (the live feed's pushes). */
  livePublishes: LivePublishes;
  /** Who a live push reaches: blocks, notification settings (the realtime door asks before it pushes). */
  liveAudience: LiveAudience;
  savedSearches: SavedSearchService;
  savedSearchMatcher: SavedSearchMatcher;
  mediaRemoval: MediaRemoval;
  uploads: UploadService;
  /** Resumable (tus) uploads, CONTRACT §24. */
  resumableUploads: ResumableUploads;
  videoJobs: VideoJobQueue;
  videoProcessor: VideoProcessor;
  comments: CommentService;
  chat: ChatService;
  stats: StatsService;
  /** Playback reports, views, analytics and leads (CONTRACT §26); its buffer is flushed on close. */
  views: ViewService;
  statsRollup: StatsRollup;
  /** The scheduler's lock and bookkeeping per job (jobs/scheduler.ts). */
  jobRuns: ScheduledJobRuns;
  maintenance: DatabaseMaintenance;
  publishing: PublishingService;
  payments: PaymentService;
  campaigns: CampaignService;
  /** Serving and charging the campaigns' impressions on this node (CONTRACT §26). */
  campaignDelivery: CampaignDelivery;
  /** The sponsored slot of the first pages of /feeds and /all. */
  sponsoredSlot: SponsoredSlot;
  presence: PresenceService;
  notifications: NotificationService;
  push: PushService;
  /** Users' reports of content, comments, messages and users (CONTRACT §21). */
  reports: ReportService;
  /** Deleting one's account: what holds at once (CONTRACT §22). */
  accountDeletion: AccountDeletion;
  /** The durable erasure of deleted accounts (jobs/account-erasure.ts runs it). */
  accountErasure: AccountErasure;
  /** Wakes the erasure workers of this node (a deletion was committed). */
  erasureWakeUp: WakeUp;
  /** Data exports (CONTRACT §22); jobs/data-export.ts runs their worker. */
  dataExports: DataExports;
  /** Wakes the export workers of this node (an export was asked for). */
  exportWakeUp: WakeUp;
  /** Wakes this node's idle video workers (a video job was queued here; other nodes poll). */
  videoWakeUp: WakeUp;
  /** Wakes this node's notification delivery (notifications were committed: jobs/notification-delivery.ts). */
  notificationWakeUp: WakeUp;
  /** The append-only log of moderation and role actions (CONTRACT §21). */
  auditLog: AuditLog;
  /** The moderation queue and decisions on reported targets, restore (CONTRACT §21). */
  moderation: ModerationService;
}

/** What a test may put in place of the outside world (the default: the real one). */
export interface ServiceSeams {
  /** How host names of outbound URLs are resolved (default: the system resolver, every address). */
  resolveHost?: HostResolver;
  /** The listing index's first load begins when this resolves (default: at once). */
  listingLoad?: Promise<void>;
  /** How long a listing waits for the index before a 503 (default 10 s). */
  listingWaitMs?: number;
  /** Rows per snapshot chunk (default SNAPSHOT_CHUNK_ROWS), and a hold on a snapshot start's catch-up. */
  listingSnapshot?: { chunkRows?: number; beforeCatchUp?: Promise<void> };
  /** The clock of playback reports (ms since the epoch): a test moves it past an hour. */
  viewClock?: () => number;
  /**
   * The time campaign delivery reads (pacing days, ends, completions; default: the system clock).
   * Tests only: it lets a test move a campaign through its days.
   */
  clock?: Clock;
}

/** Hosts of the platform URLs the operator configured: trusted destinations for publishing. */
function configuredPlatformHosts(config: Config): string[] {
  return [config.TIKTOK_API_BASE_URL, config.YOUTUBE_API_BASE_URL, config.YOUTUBE_TOKEN_URL].map((u) => new URL(u).hostname);
}

/** What the realtime door offers the long-lived services that work on its sockets (realtime/ports.ts). */
export interface LivePorts {
  /** This node's watchers of items' counts, and the word between nodes (LiveCounts). */
  countWatchers: CountWatchers;
  /** Whether a user has a socket on any node (Web Push goes only to users with none). */
  userConnected: PresenceProbe;
}

/**
 * Starts the long-lived services that follow domain events or the door's sockets: presence's
 * heartbeat, the announcement of published items, the live counts, Web Push's presence check.
 * Called once by the composition root (service.ts) once the realtime door is up; the returned
 * function stops what it started (presence is stopped on its own, first: service.ts says why).
 */
export function startLiveServices(services: Services, ports: LivePorts): () => void {
  services.presence.start();
  services.push.usePresence(ports.userConnected);
  const stops = [services.livePublishes.start(), services.liveCounts.start(ports.countWatchers)];
  return () => stops.forEach((stop) => stop());
}

/** How long start-up waits for the read model to hear the other nodes (it serves meanwhile, caches off). */
const READ_MODEL_READY_MS = 5_000;

/**
 * `repositories`: the node's (createRepositories over app.database). `redis`: the node's Redis
 * connection (server mode), for what is shared between nodes (presence, the read model's
 * invalidations, failed logins).
 */
/**
 * The listing index's snapshots (docs/search.md, "Start from a snapshot"), unless
 * LISTING_SNAPSHOT_MINUTES is 0. Their statements read or write every listed row (the versions of
 * a catch-up, a snapshot's pages): they run without the per-statement wait of requests.
 */
function listingSnapshotStart(app: AppContext, seams: ServiceSeams): SnapshotStart | null {
  const minutes = app.config.LISTING_SNAPSHOT_MINUTES;
  if (minutes === 0) return null;
  const repository = new ListingSnapshotRepository(app.database.longRunning);
  const snapshots = new IndexSnapshots(repository, app.database, minutes * 60_000, app.log, seams.listingSnapshot?.chunkRows);
  return { snapshots, beforeCatchUp: seams.listingSnapshot?.beforeCatchUp };
}

export async function createServices(app: AppContext, repositories: Repositories, redis: Redis | null = null, seams: ServiceSeams = {}): Promise<Services> {
  const resolveHost = seams.resolveHost ?? systemResolver;
  // Web Push endpoints are the users'; publishing also reaches the platform hosts the operator configured.
  const pushGate = new OutboundGate(app.config.OUTBOUND_ALLOWED_HOSTS, resolveHost);
  const publishingGate = new OutboundGate([...app.config.OUTBOUND_ALLOWED_HOSTS, ...configuredPlatformHosts(app.config)], resolveHost);
  const readModel = new ReadModel<ContentRow>(app.config, app.events, createRelay(app.config, app.database, repositories.readModelNotices, redis, app.log));
  await readModel.ready(READ_MODEL_READY_MS);
  const revocations = new Revocations(app.database, readModel, app.events, app.log);
  const tokens = await TokenService.create(repositories.serviceSecrets, app.config.JWT_SECRET, app.config.ACCESS_TOKEN_TTL);
  const blocks = new BlockService(app, repositories.blocks, repositories.follows, repositories.users, readModel.blocks);
  const notificationWakeUp = new WakeUp();
  const videoWakeUp = new WakeUp();
  const push = new PushService(app, repositories.push, repositories.serviceSecrets, pushGate);
  const notifications = new NotificationService(
    app,
    repositories.notifications,
    repositories.users,
    repositories.settings,
    repositories.blocks,
    push,
    notificationWakeUp,
  );
  const idleTimeout = new IdleTimeout(createSessionActivity(redis, app.config.REDIS_PREFIX, app.log), app.config.SESSION_TIMEOUT_MINUTE_SECONDS);
  const sessions = new SessionService(app, repositories.sessions, tokens, revocations, new LoginAlerts(repositories.settings, notifications), idleTimeout);
  const rolePermissions = new RolePermissions(repositories.roles, app.events, readModel);
  const twoFactor = new TwoFactorService(app, repositories.twoFactor, repositories.users, repositories.serviceSecrets);
  const otp = new OtpService(app, repositories.otpCodes);
  const loginGuard = new LoginGuard(createFailedLoginStore(redis, app.config.REDIS_PREFIX, app.log));
  const accounts = new AccountService(app, repositories.users, tokens, sessions, twoFactor, otp, loginGuard);
  const callers = new CallerResolver(repositories.sessions, tokens, rolePermissions, sessions, readModel.sessions, idleTimeout);
  const contentSerialiser = new ContentSerialiser(app.config);
  const mediaRemoval = new MediaRemoval(app, repositories.contents, repositories.videoJobs);
  const auditLog = new AuditLog(repositories.auditLog);
  const staffReach = new StaffReach(repositories.users, repositories.roles, auditLog);
  const content = new ContentService(app, repositories.contents, contentSerialiser, mediaRemoval, notifications, readModel.items, blocks, staffReach);
  // One key per anonymous viewer for views and campaign delivery, keyed with a secret of the service.
  const viewerKeys = new ViewerKeys(await getOrCreateServiceSecret(repositories.serviceSecrets, 'viewer-key'));
  const views = new ViewService(
    app,
    repositories.views,
    repositories.contents,
    content,
    createPlaybackStore(redis, app.config.REDIS_PREFIX, app.log),
    notifications,
    viewerKeys,
    seams.viewClock,
  );
  const chat = new ChatService(app, repositories.chat, repositories.users, blocks, views);
  const listingSnapshot = listingSnapshotStart(app, seams);
  const listingIndex = new ListingIndex(repositories.listings, () => readModel.hears(), app.log, seams.listingWaitMs, seams.listingLoad, listingSnapshot);
  readModel.onItemsChanged((change) => listingIndex.changed(change));
  // Loads in the background: until it has, listings wait for it (/readyz says 503).
  void listingIndex.start();
  const campaignDelivery = new CampaignDelivery(
    repositories.campaignDelivery,
    repositories.contents,
    app.events,
    app.log,
    seams.clock ?? (() => new Date()),
    (rows) => views.recordImpressions(rows),
  );
  const sponsoredSlot = new SponsoredSlot(campaignDelivery, createViewerState(redis, app.config.REDIS_PREFIX), blocks, contentSerialiser, viewerKeys, app.log);
  const listings = new Listings(listingIndex, contentSerialiser, readModel, blocks, sponsoredSlot);
  const feed = new ContentFeed(repositories.listings, contentSerialiser);
  const liveFeed = new ContentLiveFeed(repositories.liveContents, repositories.contents, repositories.follows, contentSerialiser);
  const payments = new PaymentService(
    app.database,
    app.config,
    repositories.payments,
    repositories.ledger,
    repositories.idempotencyKeys,
    createPaymentProvider(app.config),
  );
  const uploads = new UploadService(app, repositories.uploadedFiles, repositories.contents, repositories.videoJobs, videoWakeUp);
  const erasureWakeUp = new WakeUp();
  const exportWakeUp = new WakeUp();
  const settings = new SettingsService(app, repositories.settings, repositories.users);
  const accountDeletion = new AccountDeletion(
    repositories.users,
    repositories.sessions,
    repositories.otpCodes,
    repositories.contents,
    repositories.comments,
    repositories.chat,
    repositories.follows,
    repositories.erasures,
    revocations,
    twoFactor,
    auditLog,
    () => erasureWakeUp.poke(),
  );
  const accountErasure = new AccountErasure(app, repositories, mediaRemoval, auditLog);
  const dataExports = new DataExports(app, repositories.exports, repositories.contents, contentSerialiser, settings, notifications, () => exportWakeUp.poke());
  accountErasure.addStep({ name: 'exports', run: (id) => dataExports.eraseAllOf(id) });
  // Reports and rows of distinct viewers lose the viewer; the counts they made stay (docs/analytics.md).
  accountErasure.addStep({ name: 'views', run: (id) => views.forgetViewer(id) });
  // A leaving viewer's first showings go; every campaign's totals stay (CONTRACT §22).
  accountErasure.addStep({ name: 'campaign-reach', run: (id) => repositories.campaignDelivery.forgetViewer(id) });
  return {
    dataExports,
    exportWakeUp,
    videoWakeUp,
    notificationWakeUp,
    accountDeletion,
    accountErasure,
    erasureWakeUp,
    readModel,
    revocations,
    sessions,
    accounts,
    passwords: new PasswordService(app, repositories.users, accounts, sessions, otp),
    profiles: new ProfileService(app, repositories.users, repositories.follows, {
      own: readModel.profiles,
      public: readModel.publicProfiles,
      followings: readModel.followings,
    }),
    avatars: new AvatarService(app, repositories.users),
    follows: new FollowService(app, repositories.follows, repositories.users, notifications, blocks),
    blocks,
    roles: new RoleService(app.database, repositories.roles, rolePermissions, repositories.users, revocations, auditLog, staffReach),
    callers,
    twoFactor,
    settings,
    content,
    listings,
    listingIndex,
    feed,
    feedPages: new FeedPages(feed, readModel.pages, blocks, sponsoredSlot),
    liveFeed,
    liveCounts: new LiveCounts(app, liveFeed),
    livePublishes: new LivePublishes(app, liveFeed),
    liveAudience: new LiveAudience(blocks, notifications),
    savedSearches: new SavedSearchService(app, repositories.savedSearches, repositories.listings, contentSerialiser, blocks),
    savedSearchMatcher: new SavedSearchMatcher(app, repositories.savedSearchMatches, notifications),
    mediaRemoval,
    uploads,
    resumableUploads: new ResumableUploads(app, repositories.resumableUploads, uploads),
    videoJobs: new VideoJobQueue(repositories.videoJobs),
    videoProcessor: new VideoProcessor(app, repositories.videoJobs, repositories.contents, notifications),
    comments: new CommentService(app, repositories.comments, repositories.contents, notifications, blocks),
    chat,
    presence: new PresenceService(app, repositories.presence, createPresenceStore(app.config, redis), blocks),
    views,
    stats: new StatsService(repositories.stats, repositories.users),
    statsRollup: new StatsRollup(app.database.longRunning, repositories.stats),
    jobRuns: new ScheduledJobRuns(app.database, repositories.jobRuns),
    // ANALYZE may take minutes: its statements wait as long (DatabaseHandle.longRunning).
    maintenance: new DatabaseMaintenance(repositories.maintenance.in(app.database.longRunning)),
    publishing: new PublishingService(
      app,
      repositories.publications,
      repositories.oauthStates,
      repositories.socialAccounts,
      repositories.contents,
      repositories.serviceSecrets,
      publishingGate,
    ),
    payments,
    campaigns: new CampaignService(
      app.database,
      app.config,
      repositories.campaigns,
      repositories.estimations,
      repositories.contents,
      payments,
      notifications,
      campaignDelivery,
      repositories.campaignDelivery,
      repositories.ledger,
      // Views, watched seconds and leads the campaign's playbacks brought (src/views).
      async (ids) =>
        new Map((await views.campaignViewFigures(ids)).map((f) => [f.campaignId, { views: f.views, watch_seconds: f.watchSeconds, leads: f.leads }])),
    ),
    campaignDelivery,
    sponsoredSlot,
    notifications,
    push,
    reports: new ReportService(app, repositories.reports, repositories.users, repositories.contents, repositories.comments, repositories.chat),
    auditLog,
    moderation: new ModerationService(
      app,
      repositories.reports,
      repositories.users,
      repositories.sessions,
      repositories.contents,
      repositories.comments,
      repositories.chat,
      notifications,
      revocations,
      mediaRemoval,
      auditLog,
      staffReach,
    ),
  };
}
