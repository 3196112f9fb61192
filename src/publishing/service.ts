// Social publishing, as the story goes: a user asks for an authorization URL, the platform sends the
// browser back to our callback with a code, the callback hands code and state to the app, and the
// app presents them in a request authenticated as that same user; only then do we exchange the
// code and keep the tokens sealed (a public callback that linked by the state alone let a link
// URL opened by someone else attach their platform account to the URL's owner). Later the
// user publishes one of their completed videos, and we stream its original file to the platform
// (refreshing the access token first when it has expired), recording each publication.
import { createHash } from 'node:crypto';
import type { OutboundGate } from '../outbound/index.js';
import type { AppContext } from '../context.js';
import { requireSameIdentity, type Caller } from '../auth/index.js';
import type { ContentRepository } from '../content/index.js';
import { AppError, badRequest, conflict, notFound } from '../shared/errors.js';
import { OAuthClient } from './oauth-client.js';
import { OAuthStates, STATE_TTL_SECONDS } from './oauth-states.js';
import { PLATFORM_NAMES, platformsSwitchedOff, type Platform } from './platforms.js';
import type { PublicationRepository } from './publication-repository.js';
import type { OAuthStateRepository } from './oauth-state-repository.js';
import type { SocialAccountRepository } from './social-account-repository.js';
import type { ServiceSecretRepository } from '../secrets/index.js';
import { findPublishableVideo, type PublishableVideo } from './publishable-content.js';
import type { CallbackQuery, LinkBody, TikTokUploadBody, YouTubeUploadBody } from './schemas.js';
import { loadPublishingKeys } from './secret-keys.js';
import { SocialAccounts, type LinkedAccount } from './social-accounts.js';
import { TikTokClient } from './tiktok-client.js';
import { TokenCipher } from '../shared/token-cipher.js';
import { GrantRejectedError, cleanCode } from './upstream.js';
import { YouTubeClient } from './youtube-client.js';

/** Refresh an access token that has less than this left, so it cannot lapse mid-upload start. */
const REFRESH_MARGIN_MS = 60_000;
/** TikTok's caption (post_info.title) limit, in UTF-16 code units. */
const TIKTOK_CAPTION_MAX = 2200;
/** YouTube's limit on all tags together. */
const YOUTUBE_TAGS_MAX = 500;

interface Stores {
  states: OAuthStates;
  accounts: SocialAccounts;
}

interface PlatformUpload {
  accessToken: string;
  video: PublishableVideo;
  publicationId: string;
}

export class PublishingService {
  private readonly oauth: Record<Platform, OAuthClient>;
  private readonly tiktok: TikTokClient;
  private readonly youtube: YouTubeClient;
  private stores: Promise<Stores> | null = null;
  /** Platforms without real client credentials in production: every act on them answers 503. */
  readonly switchedOff: readonly Platform[];

  constructor(
    private readonly app: AppContext,
    private readonly publications: PublicationRepository,
    private readonly oauthStates: OAuthStateRepository,
    private readonly socialAccounts: SocialAccountRepository,
    private readonly contents: ContentRepository,
    private readonly secrets: ServiceSecretRepository,
    gate: OutboundGate,
  ) {
    this.oauth = OAuthClient.forPlatforms(app.config);
    this.tiktok = new TikTokClient(app.config, gate);
    this.youtube = new YouTubeClient(app.config, gate);
    this.switchedOff = platformsSwitchedOff(app.config);
    for (const platform of this.switchedOff) {
      app.log.warn({ platform }, `${PLATFORM_NAMES[platform]} publishing is switched off: its client credentials are unset (sandbox values) in production`);
    }
  }

  /** Linking and publishing to a platform switched off (see platformsSwitchedOff) answer 503. */
  private requireSwitchedOn(platform: Platform): void {
    if (this.switchedOff.includes(platform)) {
      throw new AppError(503, 'publishing.error.unavailable', `${PLATFORM_NAMES[platform]} publishing is switched off on this service`);
    }
  }

  /** Keys come from the database when not configured, so they are loaded on first use. */
  private getStores(): Promise<Stores> {
    this.stores ??= loadPublishingKeys(this.secrets, this.app.config.PUBLISHING_SECRET_KEY).then((keys) => {
      const cipher = new TokenCipher(keys.tokenEncryptionKey);
      return {
        states: new OAuthStates(this.oauthStates, cipher, keys.stateSigningKey),
        accounts: new SocialAccounts(this.socialAccounts, cipher),
      };
    });
    this.stores.catch(() => (this.stores = null));
    return this.stores;
  }

  redirectUri(platform: Platform): string {
    return `${this.app.config.publicBaseUrl}/content/api/v1/${platform}/callback`;
  }

  async authorizationUrl(userId: string, platform: Platform): Promise<{ url: string; expires_in: number }> {
    this.requireSwitchedOn(platform);
    const { states } = await this.getStores();
    const { state, codeVerifier } = await states.issue(userId, platform);
    const url = this.oauth[platform].authorizationUrl({ state, codeVerifier, redirectUri: this.redirectUri(platform) });
    return { url, expires_in: STATE_TTL_SECONDS };
  }

  /**
   * The redirect target links nothing: it passes what the platform sent on to the app, which
   * completes with `link` as the signed-in user. The state is neither checked nor spent here.
   */
  static callbackResult(platform: Platform, query: CallbackQuery) {
    if (query.error) {
      return {
        message: `${PLATFORM_NAMES[platform]} authorization was not granted; nothing was linked`,
        data: { platform, code: null, state: query.state, error: cleanCode(query.error, 'error'), error_description: query.error_description ?? null },
      };
    }
    if (!query.code) throw badRequest('publishing.error.missing_code', 'The authorization code is missing', { field: 'code', constraint: 'required' });
    return {
      message: `Send code and state to POST /content/api/v1/${platform}/link, signed in, to finish linking the ${PLATFORM_NAMES[platform]} account`,
      data: { platform, code: query.code, state: query.state, error: null, error_description: null },
    };
  }

  /** Completes a link for the caller, who must be the user the state was issued to. */
  async link(callerId: string, platform: Platform, body: LinkBody) {
    this.requireSwitchedOn(platform);
    const { states, accounts } = await this.getStores();
    const { codeVerifier } = await states.consume(platform, body.state, callerId).catch((err: unknown) => {
      // Someone presenting another user's state is what a link hijack looks like: worth a trace.
      if (err instanceof AppError && err.code === 'publishing.error.state_mismatch')
        this.app.log.warn({ userId: callerId, platform }, 'social link refused: state issued to another user');
      throw err;
    });
    let tokens;
    try {
      tokens = await this.oauth[platform].exchangeCode(body.code, codeVerifier, this.redirectUri(platform));
    } catch (err) {
      if (err instanceof GrantRejectedError) {
        throw badRequest('publishing.error.invalid_code', `${PLATFORM_NAMES[platform]} refused the authorization code (${err.platformCode})`, {
          field: 'code',
          constraint: 'valid, unused authorization code',
        });
      }
      throw err;
    }
    const account = await accounts.link(callerId, platform, tokens);
    this.app.log.info({ userId: callerId, platform }, 'social account linked');
    return {
      platform,
      linked: true,
      external_id: account.externalId,
      scope: account.scope,
      expires_at: account.accessExpiresAt?.toISOString() ?? null,
    };
  }

  async linkedAccounts(userId: string) {
    const { accounts } = await this.getStores();
    return accounts.list(userId);
  }

  async unlink(userId: string, platform: Platform): Promise<void> {
    const { accounts } = await this.getStores();
    if (!(await accounts.unlink(userId, platform))) throw notFound('publishing.error.account_not_linked', 'No such linked account');
  }

  /** `claimedUserId` is the x-user-id header, which must name the caller (SPEC §5.6). */
  publishToTikTok(caller: Caller, claimedUserId: string, body: TikTokUploadBody): Promise<{ publication_id: string; publish_id: string; status: string }> {
    const caption = [body.title, body.description, body.tags.map((t) => `#${t.replace(/^#+/, '').replace(/\s+/g, '')}`).join(' ')].filter(Boolean).join('\n');
    const refusal =
      caption.length > TIKTOK_CAPTION_MAX
        ? badRequest('publishing.error.caption_too_long', `Title, description and tags together exceed TikTok's ${TIKTOK_CAPTION_MAX} characters`, {
            field: 'description',
            constraint: `caption at most ${TIKTOK_CAPTION_MAX} characters`,
          })
        : null;
    return this.publish(caller, claimedUserId, 'tiktok', body.id, refusal, async ({ accessToken, video, publicationId }) => {
      const result = await this.tiktok.publishVideo({
        accessToken,
        read: video.read,
        size: video.size,
        caption,
        privacyLevel: body.privacy_level,
        onPublishId: (publishId) => this.publications.setRemoteId(publicationId, publishId),
      });
      return { remoteId: result.publishId, status: result.status, answer: { publish_id: result.publishId, status: result.status } };
    });
  }

  /** `claimedUserId` is the x-user-id header, which must name the caller (SPEC §5.6). */
  publishToYouTube(
    caller: Caller,
    claimedUserId: string,
    body: YouTubeUploadBody,
  ): Promise<{ publication_id: string; video_id: string; url: string; status: string }> {
    const tagsLength = body.tags.reduce((n, t) => n + t.length + (t.includes(' ') ? 2 : 0), 0) + Math.max(0, body.tags.length - 1);
    const refusal =
      tagsLength > YOUTUBE_TAGS_MAX
        ? badRequest('publishing.error.tags_too_long', `Tags together exceed YouTube's ${YOUTUBE_TAGS_MAX} characters`, {
            field: 'tags',
            constraint: `at most ${YOUTUBE_TAGS_MAX} characters together`,
          })
        : null;
    return this.publish(caller, claimedUserId, 'youtube', body.id, refusal, async ({ accessToken, video }) => {
      const result = await this.youtube.uploadVideo({
        accessToken,
        read: video.read,
        size: video.size,
        title: body.title,
        description: body.description,
        tags: body.tags,
        categoryId: body.category_id,
        privacyStatus: body.privacy_status,
      });
      const url = `https://www.youtube.com/watch?v=${encodeURIComponent(result.videoId)}`;
      return { remoteId: result.videoId, status: result.status, answer: { video_id: result.videoId, url, status: result.status } };
    });
  }

  /**
   * The publishing story every platform shares. `refusal` is the platform's own limit the request
   * breaks, if any: it is answered after the identity check and before anything is looked up.
   * Each send is recorded as a publication, marked failed when `send` throws.
   */
  private async publish<A extends object>(
    caller: Caller,
    claimedUserId: string,
    platform: Platform,
    contentId: string,
    refusal: AppError | null,
    send: (upload: PlatformUpload) => Promise<{ remoteId: string; status: string; answer: A }>,
  ): Promise<{ publication_id: string } & A> {
    requireSameIdentity(caller, { userId: claimedUserId.trim() });
    this.requireSwitchedOn(platform);
    if (refusal) throw refusal;
    const { userId } = caller;
    const video = await findPublishableVideo(this.contents, this.app.media, contentId, userId);
    const account = await this.usableAccount(userId, platform);
    const publicationId = await this.publications.start(userId, video.contentId, platform);
    try {
      const result = await send({ accessToken: account.accessToken, video, publicationId });
      await this.publications.finish(publicationId, result.remoteId, result.status);
      this.app.log.info({ userId, contentId: video.contentId, platform, publicationId }, 'content published');
      return { publication_id: publicationId, ...result.answer };
    } catch (err) {
      await this.publications.fail(publicationId, err instanceof AppError ? err.message : 'unexpected error');
      throw err;
    }
  }

  /** The linked account with a live access token, refreshed first when it has (nearly) expired. */
  private async usableAccount(userId: string, platform: Platform): Promise<LinkedAccount> {
    const { accounts } = await this.getStores();
    const account = await accounts.find(userId, platform);
    if (!account) throw notLinked(platform);
    if (!needsRefresh(account)) return account;
    // One refresh at a time per account, across nodes: TikTok rotates refresh tokens, so a second
    // concurrent refresh would present a spent token and look like a revoked grant.
    return this.app.database.withAdvisoryLock(refreshLockKey(userId, platform), async () => {
      const current = await accounts.find(userId, platform);
      if (!current) throw notLinked(platform);
      if (!needsRefresh(current)) return current; // another request refreshed it meanwhile
      const linkExpired = () =>
        conflict('publishing.error.account_link_expired', `The ${PLATFORM_NAMES[platform]} authorization expired or was revoked; link the account again`);
      if (!current.refreshToken || (current.refreshExpiresAt && current.refreshExpiresAt.getTime() <= Date.now())) {
        await accounts.unlink(userId, platform);
        throw linkExpired();
      }
      try {
        await accounts.storeRefreshed(userId, platform, await this.oauth[platform].refresh(current.refreshToken));
        this.app.log.info({ userId, platform }, 'social access token refreshed');
      } catch (err) {
        if (err instanceof GrantRejectedError) {
          await accounts.unlink(userId, platform);
          throw linkExpired();
        }
        throw err;
      }
      return (await accounts.find(userId, platform))!;
    });
  }
}

const notLinked = (platform: Platform) =>
  conflict('publishing.error.account_not_linked', `No ${PLATFORM_NAMES[platform]} account is linked; call GET /content/api/v1/${platform}/auth first`);

const needsRefresh = (account: LinkedAccount) => {
  const expiresAt = account.accessExpiresAt?.getTime();
  return expiresAt !== undefined && expiresAt - Date.now() <= REFRESH_MARGIN_MS;
};

/** A 48-bit advisory lock key per (user, platform), hashed so it does not meet the small fixed keys. */
const refreshLockKey = (userId: string, platform: Platform) =>
  parseInt(createHash('sha256').update(`social-refresh:${userId}:${platform}`).digest('hex').slice(0, 12), 16);
