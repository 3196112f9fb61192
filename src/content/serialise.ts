// Turns a stored content row into each response shape of SPEC §4.3: the `all` listing item, the
// `completed` listing item, the abridged feed item and the detail. Media paths become URLs here.
import type { Config } from '../config.js';
import { mediaUrl } from '../shared/media-url.js';
import { fullName } from '../shared/person.js';
import { videoSummary } from './video-summary.js';
import type { ContentRow, StoredVideo } from './content-repository.js';
import { DEFAULT_LANGUAGE, type Language } from './values.js';
import type { FeedItem } from './live/schemas.js';
import type { CompletedItem, ListingItem } from './response-schemas.js';
import type { ContentDetail, DetailBlock } from './detail-schemas.js';

export interface Viewer {
  /** May see uploaders' phone numbers (`read:contact`). */
  canReadContact: boolean;
}

export class ContentSerialiser {
  constructor(private readonly config: Config) {}

  private url(path: string | null | undefined): string | null {
    return path ? mediaUrl(this.config, path) : null;
  }

  video(v: StoredVideo) {
    // `error` is the older name of `error_message` (kept for existing clients). Fields are added
    // with Object.assign, not after a spread: V8 makes `{ ...a, more }` the slow (dictionary) way,
    // many times dearer to build and to serialise, and every listed item has one (docs/performance.md).
    return Object.assign(videoSummary(this.config, v), { error: v.error, error_code: v.error_code ?? null, error_message: v.error });
  }

  images(row: ContentRow) {
    return row.images.map((img) => ({ id: img.id, url: img.path ? this.url(img.path) : (img.url ?? null) }));
  }

  private geo(row: ContentRow) {
    return row.latitude === null || row.longitude === null ? null : { lat: row.latitude, long: row.longitude };
  }

  private uploaderName(row: ContentRow) {
    return fullName(row.uploader_given_name, row.uploader_family_name);
  }

  /** The block in `lang`, else English, else the first one (SPEC §9), with `location`. */
  private localisedBlock(row: ContentRow, lang: Language) {
    const block = row.content_info.find((b) => b.lang === lang) ?? row.content_info.find((b) => b.lang === DEFAULT_LANGUAGE) ?? row.content_info[0];
    return block ? Object.assign({ ...block }, { location: block.address }) : null;
  }

  private common(row: ContentRow) {
    return {
      id: row.id,
      price: row.price,
      unit_price: row.unit_price,
      price_per_area: row.price_per_area,
      area: row.area,
      unit_area: row.unit_area,
      geo: this.geo(row),
      hash_tags: row.hash_tags,
      profit_rate: row.profit_rate,
      amenities: row.amenities,
      real_estate_info: {
        legal_certificates: row.real_estate_info.legal_certificates ?? null,
        apartment_type: row.real_estate_info.apartment_type ?? null,
        project_status: row.real_estate_info.project_status ?? null,
      },
      is_multi_language: row.is_multi_language,
      video: this.video(row.video),
      images: this.images(row),
      reaction_count: row.reaction_count,
      comment_count: row.comment_count,
      view_count: row.view_count,
      status: row.status,
      created_at: row.created_at.toISOString(),
      updated_at: row.updated_at.toISOString(),
    };
  }

  private uploader(row: ContentRow, viewer: Viewer) {
    return {
      user_id: row.uploader_id,
      phone_number: viewer.canReadContact ? row.uploader_phone : null,
      name: this.uploaderName(row),
      avatar: this.url(row.uploader_picture),
    };
  }

  /** An item of `GET /all`: every field, `content_info` as the array of blocks (only `lang`'s when filtered). */
  listingItem(row: ContentRow, viewer: Viewer, lang?: Language): ListingItem {
    return Object.assign(this.common(row), {
      content_info: lang ? row.content_info.filter((b) => b.lang === lang) : row.content_info,
      uploader: this.uploader(row, viewer),
    });
  }

  /** An item of `GET /completed`: `content_info` holds the one block in the caller's language, with `location`. */
  completedItem(row: ContentRow, viewer: Viewer, lang: Language): CompletedItem {
    const block = this.localisedBlock(row, lang);
    return Object.assign(this.common(row), {
      location: block?.location ?? null,
      content_info: block ? [block] : [],
      uploader: this.uploader(row, viewer),
    });
  }

  /** An abridged item of `GET /feeds` (SPEC §4.3 lists its fields). */
  feedItem(row: ContentRow, lang: Language): FeedItem {
    const block = this.localisedBlock(row, lang);
    return {
      id: row.id,
      price: row.price,
      unit_price: row.unit_price,
      area: row.area,
      unit_area: row.unit_area,
      video: { thumbnail_url: this.url(row.video.thumbnail_path), url: this.url(row.video.playlist_path) },
      content_info: block ? [block] : [],
      uploader: { name: this.uploaderName(row), avatar: this.url(row.uploader_picture) },
      reaction_count: row.reaction_count,
      comment_count: row.comment_count,
      view_count: row.view_count,
      created_at: row.created_at.toISOString(),
    };
  }

  /** `GET {api}/content/:id`: `content_info` keyed by language (null where there is no block). */
  detail(row: ContentRow, viewer: Viewer): ContentDetail {
    const block = (lang: Language): DetailBlock | null => {
      const b = row.content_info.find((x) => x.lang === lang);
      return b
        ? {
            project_name: b.project_name,
            description: b.description,
            address: b.address,
            legal_certificates: b.legal_certificates,
            apartment_type: b.apartment_type,
            project_status: b.project_status,
            extra_description: b.extra_description,
          }
        : null;
    };
    // One key per language (a language added to LANGUAGES fails the typecheck here until it has one).
    const contentInfo = { en: block('en'), vi: block('vi'), ko: block('ko') } satisfies Record<Language, DetailBlock | null>;
    const { video: _full, ...rest } = this.common(row);
    const v = row.video;
    return {
      ...rest,
      video: {
        thumbnail_url: this.url(v.thumbnail_path),
        url: this.url(v.playlist_path),
        duration: v.duration,
        resolution: v.resolution,
        status: v.status,
        // Why processing failed (an item that is not published is shown to its owner only).
        error_code: v.status === 'failed' ? (v.error_code ?? 'video.error.processing_failed') : null,
        error_message: v.status === 'failed' ? v.error : null,
      },
      images: row.images.map((img) => ({ id: img.id, name: img.name, url: img.path ? this.url(img.path) : (img.url ?? null) })),
      content_info: contentInfo,
      uploader: {
        name: this.uploaderName(row),
        phone: viewer.canReadContact ? row.uploader_phone : null,
      },
      // Only a removed item carries the moderator's note; only its owner (and staff) can read it (CONTRACT §21).
      ...(row.status === 'removed' ? { moderation_note: row.moderation_note } : {}),
    };
  }
}
