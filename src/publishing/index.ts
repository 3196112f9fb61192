// The public surface of src/publishing/: what other domains and the doors use of it.
export type { OAuthStateRepository } from './oauth-state-repository.js';
export { PLATFORMS, PLATFORM_NAMES } from './platforms.js';
export type { Platform } from './platforms.js';
export type { PublicationRepository } from './publication-repository.js';
export { callbackQuery, identityHeaders, linkBody, tiktokUploadBody, youtubeUploadBody } from './schemas.js';
export { PublishingService } from './service.js';
export type { SocialAccountRepository } from './social-account-repository.js';
