// The content domain as other domains and the doors see it: the item (its repository, rules,
// schemas and serialiser), the listings (one path, answered by the listing index), the feed, and
// the map viewport. Anything not exported here is the domain's own (docs/content.md, "Layout").
// The live feed (live-*.ts) is exported from its own files for now.
export { ContentService } from './service.js';
export { ContentRepository, type ContentMediaRow, type ContentRow, type StoredVideo } from './content-repository.js';
export { contentNotFound, findManageableContent, mayViewContent, viewerOf } from './access.js';
export { ContentSerialiser } from './serialise.js';
export { clustersQuery, completedQuery, contentIdParams, createContentBody, editContentBody, feedQuery, languageHeader, listAllQuery } from './schemas.js';
export { contentDetailSchema, createdContentSchema } from './detail-schemas.js';
export { completedItemSchema, feedItemSchema, listingItemSchema } from './response-schemas.js';
export { DEFAULT_LANGUAGE, LANGUAGES, type Language } from './values.js';
export { ContentListingRepository, PUBLISHED, searchTerms } from './listing-repository.js';
export { Listings } from './listing/listings.js';
export { ListingIndex } from './search-index/listing-index.js';
export { viewportAround, type Viewport } from './search-index/viewport.js';
export { ContentFeed } from './feed/feed.js';
export { FeedPages } from './feed/feed-pages.js';
export type { BrowsedPoint, FirstPageSlot, SlotRequest, SlotViewer } from './listing/first-page-slot.js';
export { areaWatchPayload, contentStatsSchema, contentWatchPayload, socketLanguage } from './live/schemas.js';
export type { PublishedItem } from './live/schemas.js';
export type { AreaWatch, ContentStats } from './live/schemas.js';
export { videoSummary, videoSummarySchema, type VideoSummary } from './video-summary.js';
