// The composition root: every service of the domain is built here, once, from the AppContext,
// and handed to the doors into it (http/ routes, realtime/ namespaces, jobs/). Nothing else
// constructs a service, so each has one instance per node and one place says what it needs.
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
import { ContentSerialiser } from './content/serialise.js';
import { ContentService } from './content/service.js';
import { FollowService } from './follows/service.js';
import { MediaRemoval } from './media/media-removal.js';
import { UploadService } from './media/upload-service.js';
import { VideoJobRepository } from './media/video-job-repository.js';
import { VideoProcessor } from './media/video-processor.js';
import { createPaymentProvider } from './payments/provider.js';
import { PaymentService } from './payments/service.js';
import { PublishingService } from './publishing/service.js';
import { SettingsService } from './settings/service.js';
import { StatsService } from './stats/service.js';
import { TwoFactorService } from './twofactor/service.js';

export interface Services {
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
  mediaRemoval: MediaRemoval;
  uploads: UploadService;
  videoJobs: VideoJobRepository;
  videoProcessor: VideoProcessor;
  comments: CommentService;
  chat: ChatService;
  stats: StatsService;
  publishing: PublishingService;
  payments: PaymentService;
  campaigns: CampaignService;
}

export async function createServices(app: AppContext): Promise<Services> {
  const tokens = await TokenService.create(app.database, app.config.JWT_SECRET, app.config.ACCESS_TOKEN_TTL);
  const sessions = new SessionService(app);
  const rolePermissions = new RolePermissions(app.database);
  const twoFactor = new TwoFactorService(app);
  const otp = new OtpService(app);
  const accounts = new AccountService(app, tokens, sessions, twoFactor, otp);
  const callers = new CallerResolver(app.database, tokens, rolePermissions, app.events);
  const contentSerialiser = new ContentSerialiser(app.config);
  const mediaRemoval = new MediaRemoval(app);
  const content = new ContentService(app, contentSerialiser, mediaRemoval);
  const payments = new PaymentService(app.database, app.config, createPaymentProvider(app.config));
  return {
    sessions,
    accounts,
    passwords: new PasswordService(app, accounts, sessions, otp),
    profiles: new ProfileService(app),
    avatars: new AvatarService(app),
    follows: new FollowService(app),
    roles: new RoleService(app.database, rolePermissions),
    callers,
    twoFactor,
    settings: new SettingsService(app.database),
    content,
    listings: new ContentListings(app, contentSerialiser),
    feed: new ContentFeed(app, contentSerialiser),
    mediaRemoval,
    uploads: new UploadService(app),
    videoJobs: new VideoJobRepository(app.database),
    videoProcessor: new VideoProcessor(app),
    comments: new CommentService(app),
    chat: new ChatService(app),
    stats: new StatsService(app.database),
    publishing: new PublishingService(app),
    payments,
    campaigns: new CampaignService(app.database, app.config, payments),
  };
}
