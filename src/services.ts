// The composition root: every service of the domain is built here, once, from the AppContext,
// and handed to the doors into it (http/ routes, realtime/ namespaces, jobs/). Nothing else
// constructs a service, so each has one instance per node and one place says what it needs.
import type { Redis } from 'ioredis';
import type { AppContext } from './context.js';
import { AccountService } from './auth/accounts.js';
import { AvatarService } from './auth/avatar.js';
import { CallerResolver } from './auth/caller.js';
import { PasswordService } from './auth/password-reset.js';
import { OtpService } from './auth/otp.js';
import { ProfileService } from './auth/profile.js';
import { SessionService } from './auth/sessions.js';
import { TokenService } from './auth/tokens.js';
import { RolePermissions } from './authorization/role-permissions.js';
import { RoleService } from './authorization/roles.js';
import { CampaignService } from './campaigns/service.js';
import { ChatService } from './chat/service.js';
import { CommentService } from './comments/service.js';
import { ContentFeed } from './content/feed.js';
import { ContentListings } from './content/listings.js';
import { ListingAnswers } from './content/listing-answers.js';
import { ContentLiveFeed } from './content/live-feed.js';
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
import { VideoProcessor } from './media/video-processor.js';
import { NotificationService } from './notifications/service.js';
import { createPaymentProvider } from './payments/provider.js';
import { PaymentService } from './payments/service.js';
import { PresenceService } from './presence/service.js';
import { createPresenceStore } from './presence/create-store.js';
import { PublishingService } from './publishing/service.js';
import { PushService } from './push/service.js';
import { SettingsService } from './settings/service.js';
import { StatsService } from './stats/service.js';
import { TwoFactorService } from './twofactor/service.js';
import { ReadModel } from './read-model/read-model.js';
import { createRelay } from './read-model/create-relay.js';

export interface Services {
  readModel: ReadModel;
  sessions: SessionService;
  accounts: AccountService;
  passwords: PasswordService;
  profiles: ProfileService;
  avatars: AvatarService;
  follows: FollowService;
  roles: RoleService;
  callers: CallerResolver;
  twoFactor: TwoFactorService;
  settings: SettingsService;
  content: ContentService;
  listings: ContentListings;
  feed: ContentFeed;
  /** The listings' answers, first pages from the read model. */
  listingAnswers: ListingAnswers;
  liveFeed: ContentLiveFeed;
  savedSearches: SavedSearchService;
  savedSearchMatcher: SavedSearchMatcher;
  mediaRemoval: MediaRemoval;
  uploads: UploadService;
  /** Resumable (tus) uploads, CONTRACT §24. */
  resumableUploads: ResumableUploads;
  videoJobs: VideoJobRepository;
  videoProcessor: VideoProcessor;
  comments: CommentService;
  chat: ChatService;
  stats: StatsService;
  publishing: PublishingService;
  payments: PaymentService;
  campaigns: CampaignService;
  presence: PresenceService;
  notifications: NotificationService;
  push: PushService;
}

/**
 * `redis`: the node's Redis connection (server mode), for what is shared between nodes (presence,
 * the read model's invalidations).
 */
export async function createServices(app: AppContext, redis: Redis | null = null): Promise<Services> {
  const readModel = new ReadModel(app.config, app.events, createRelay(app.config, redis, app.log));
  const tokens = await TokenService.create(app.database, app.config.JWT_SECRET, app.config.ACCESS_TOKEN_TTL);
  const push = new PushService(app);
  const notifications = new NotificationService(app, push);
  const sessions = new SessionService(app, notifications);
  const rolePermissions = new RolePermissions(app.database, app.events, readModel);
  const twoFactor = new TwoFactorService(app);
  const otp = new OtpService(app);
  const accounts = new AccountService(app, tokens, sessions, twoFactor, otp);
  const callers = new CallerResolver(app.database, tokens, rolePermissions, app.events, readModel.sessions);
  const contentSerialiser = new ContentSerialiser(app.config);
  const mediaRemoval = new MediaRemoval(app);
  const content = new ContentService(app, contentSerialiser, mediaRemoval, notifications, readModel.items);
  const chat = new ChatService(app);
  const listings = new ContentListings(app, contentSerialiser, readModel);
  const feed = new ContentFeed(app, contentSerialiser);
  const payments = new PaymentService(app.database, app.config, createPaymentProvider(app.config));
  const uploads = new UploadService(app);
  return {
    readModel,
    sessions,
    accounts,
    passwords: new PasswordService(app, accounts, sessions, otp),
    profiles: new ProfileService(app, readModel.profiles),
    avatars: new AvatarService(app),
    follows: new FollowService(app, notifications),
    roles: new RoleService(app.database, rolePermissions),
    callers,
    twoFactor,
    settings: new SettingsService(app.database),
    content,
    listings,
    feed,
    listingAnswers: new ListingAnswers(listings, feed, readModel.pages),
    liveFeed: new ContentLiveFeed(app, contentSerialiser),
    savedSearches: new SavedSearchService(app, contentSerialiser),
    savedSearchMatcher: new SavedSearchMatcher(app, notifications),
    mediaRemoval,
    uploads,
    resumableUploads: new ResumableUploads(app, new ResumableUploadRepository(app.database), uploads),
    videoJobs: new VideoJobRepository(app.database),
    videoProcessor: new VideoProcessor(app, notifications),
    comments: new CommentService(app, notifications),
    chat,
    presence: new PresenceService(app, createPresenceStore(app.config, redis), (userId) => chat.roomIdsOf(userId)),
    stats: new StatsService(app.database),
    publishing: new PublishingService(app),
    payments,
    campaigns: new CampaignService(app.database, app.config, payments, notifications),
    notifications,
    push,
  };
}
