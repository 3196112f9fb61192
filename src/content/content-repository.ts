// The queries on `contents` and `content_reactions` that create, read, change and delete one item,
// including the media columns that uploads, video processing and media removal write. Listing
// and feed queries live in listing-repository.ts.
import { sql } from 'drizzle-orm';
import { Repository } from '../db/repository.js';
import { jsonb, textArray } from '../db/sql-fragments.js';
import type { DerivedColumns, LanguageBlock, RealEstateInfo } from './derived-columns.js';

/** contents.video as stored (paths relative to MEDIA_DIR). */
export interface StoredVideo {
  original_name: string | null;
  size: number | null;
  resolution: string | null;
  duration: number | null;
  status: string;
  original_path: string | null;
  playlist_path: string | null;
  thumbnail_path: string | null;
  /** Why processing failed, as the owner sees it (clean words, never a tool's output). */
  error: string | null;
  /** The failure's code (`video.error.*`); absent on items stored before it was kept. */
  error_code?: string | null;
}

export interface StoredImage {
  id: string;
  path: string | null;
  name: string;
  /** Only for images given by URL at creation (no stored file). */
  url?: string;
}

/** One row of `contents` joined with its uploader (CONTENT_COLUMNS). */
export interface ContentRow {
  id: string;
  uploader_id: string;
  status: string;
  price: number;
  unit_price: string;
  area: number;
  unit_area: string;
  price_per_area: number;
  latitude: number | null;
  longitude: number | null;
  hash_tags: string[];
  profit_rate: { roi: number; roa: number } | null;
  amenities: string[];
  real_estate_info: RealEstateInfo;
  is_multi_language: boolean;
  content_info: LanguageBlock[];
  video: StoredVideo;
  images: StoredImage[];
  reaction_count: number;
  /** Kept by a trigger on `comments` (migration 0010), replies included. */
  comment_count: number;
  /** Counted views (CONTRACT §26), added by the views' flush (src/views/). */
  view_count: number;
  created_at: Date;
  updated_at: Date;
  uploader_given_name: string;
  uploader_family_name: string;
  uploader_picture: string | null;
  uploader_phone: string;
  /** The moderator's note of a removal (CONTRACT §21), shown to the owner only. */
  moderation_note: string | null;
}

/** The columns of an item that its media work reads (MEDIA_COLUMNS). */
export interface ContentMediaRow {
  id: string;
  uploader_id: string;
  status: string;
  video: StoredVideo;
  images: StoredImage[];
}

/**
 * The status an item shows (CONTRACT §21): a moderation mark (`under_review`, `removed`) or a
 * suspended uploader's hold (`under_review`) stands before its video's state, so every rule that
 * reads `status === 'completed'` (who may see it, the live feed, publishing) treats a held or
 * removed item as not published, and its owner sees why.
 */
const effectiveStatus = (alias: 'c.' | '') =>
  sql.raw(
    `case when ${alias}moderation_status is not null then ${alias}moderation_status when ${alias}suspension_hold then 'under_review' else ${alias}status end`,
  );

/** Every column a response needs: the item and its uploader. Use with `from contents c join users u`. */
export const CONTENT_COLUMNS = sql`
  c.id, c.uploader_id, ${effectiveStatus('c.')} as status, c.moderation_note, c.price, c.unit_price, c.area, c.unit_area, c.price_per_area,
  c.latitude, c.longitude, c.hash_tags, c.profit_rate, c.amenities, c.real_estate_info,
  c.is_multi_language, c.content_info, c.video, c.images, c.reaction_count, c.comment_count, c.view_count, c.created_at, c.updated_at,
  u.given_name as uploader_given_name, u.family_name as uploader_family_name,
  u.picture as uploader_picture, u.phone_number as uploader_phone`;

const MEDIA_COLUMNS = sql`id, uploader_id, ${effectiveStatus('')} as status, video, images`;

export interface NewContent {
  id: string;
  uploaderId: string;
  price: number;
  unitPrice: string;
  area: number;
  unitArea: string;
  latitude: number | null;
  longitude: number | null;
  hashTags: string[];
  profitRate: { roi: number; roa: number } | null;
  amenities: string[];
  realEstateInfo: RealEstateInfo;
  isMultiLanguage: boolean;
  contentInfo: LanguageBlock[];
  derived: DerivedColumns;
  video: StoredVideo;
  images: StoredImage[];
}

export interface ContentEdit {
  price: number;
  area: number;
  latitude: number;
  longitude: number;
  amenities: string[];
  realEstateInfo: RealEstateInfo;
  contentInfo: LanguageBlock[];
  derived: DerivedColumns;
  images: StoredImage[];
}

/** What video processing stores on the item once its video is ready. */
export interface ProcessedVideo {
  resolution: string;
  duration: number;
  size: number;
  playlist_path: string;
  thumbnail_path: string;
}

export class ContentRepository extends Repository {
  async insert(c: NewContent): Promise<{ id: string; status: string; created_at: Date }> {
    const [row] = await this.db.rows<{ id: string; status: string; created_at: Date }>(sql`
      insert into contents (id, uploader_id, status, price, unit_price, area, unit_area, latitude, longitude,
        hash_tags, profit_rate, amenities, real_estate_info, is_multi_language, content_info, langs,
        facet_apartment_types, facet_project_statuses, search_text, video, images)
      values (${c.id}, ${c.uploaderId}, 'processing', ${c.price}, ${c.unitPrice}, ${c.area}, ${c.unitArea},
        ${c.latitude}, ${c.longitude}, ${jsonb(c.hashTags)}, ${c.profitRate ? jsonb(c.profitRate) : null},
        ${textArray(c.amenities)}, ${jsonb(c.realEstateInfo)}, ${c.isMultiLanguage}, ${jsonb(c.contentInfo)},
        ${textArray(c.derived.langs)}, ${textArray(c.derived.apartmentTypes)}, ${textArray(c.derived.projectStatuses)},
        ${c.derived.searchText}, ${jsonb(c.video)}, ${jsonb(c.images)})
      returning id, status, created_at`);
    return row;
  }

  /** A live (not deleted) item with its uploader, or null. */
  async findLive(id: string): Promise<ContentRow | null> {
    const [row] = await this.db.rows<ContentRow>(sql`
      select ${CONTENT_COLUMNS} from contents c join users u on u.id = c.uploader_id
      where c.id = ${id} and c.deleted_at is null`);
    return row ?? null;
  }

  /** As findLive, holding the item's row lock until the transaction ends. */
  async findLiveForUpdate(id: string): Promise<ContentRow | null> {
    const [row] = await this.db.rows<ContentRow>(sql`
      select ${CONTENT_COLUMNS} from contents c join users u on u.id = c.uploader_id
      where c.id = ${id} and c.deleted_at is null for update of c`);
    return row ?? null;
  }

  /**
   * Holds a live item for review (CONTRACT §21: reported by enough people); false when it is gone
   * or already marked.
   */
  async holdForReview(id: string): Promise<boolean> {
    const rows = await this.db.rows(sql`
      update contents set moderation_status = 'under_review', updated_at = now()
      where id = ${id} and deleted_at is null and moderation_status is null returning id`);
    return rows.length > 0;
  }

  /**
   * A moderator's decision on a live item (CONTRACT §21): `removed` with the note its owner sees,
   * or no mark (a review ends without removal). Returns the uploader; null when the item is gone.
   */
  async setModeration(id: string, status: 'removed' | null, note: string | null): Promise<{ uploader_id: string } | null> {
    const [row] = await this.db.rows<{ uploader_id: string }>(sql`
      update contents set moderation_status = ${status}, moderation_note = ${note}, updated_at = now()
      where id = ${id} and deleted_at is null returning uploader_id`);
    return row ?? null;
  }

  /** Holds (or releases) every live item of a suspended (restored) uploader; the ids changed. */
  async setSuspensionHold(uploaderId: string, hold: boolean): Promise<string[]> {
    const rows = await this.db.rows<{ id: string }>(sql`
      update contents set suspension_hold = ${hold}
      where uploader_id = ${uploaderId} and deleted_at is null and suspension_hold <> ${hold} returning id`);
    return rows.map((r) => r.id);
  }

  /** Marks the item deleted; false when it was already gone. */
  async softDelete(id: string): Promise<boolean> {
    const rows = await this.db.rows(sql`
      update contents set deleted_at = now(), updated_at = now() where id = ${id} and deleted_at is null returning id`);
    return rows.length > 0;
  }

  async applyEdit(id: string, e: ContentEdit): Promise<void> {
    await this.db.rows(sql`
      update contents set price = ${e.price}, area = ${e.area}, latitude = ${e.latitude}, longitude = ${e.longitude},
        amenities = ${textArray(e.amenities)}, real_estate_info = ${jsonb(e.realEstateInfo)},
        content_info = ${jsonb(e.contentInfo)}, langs = ${textArray(e.derived.langs)},
        facet_apartment_types = ${textArray(e.derived.apartmentTypes)},
        facet_project_statuses = ${textArray(e.derived.projectStatuses)},
        search_text = ${e.derived.searchText}, images = ${jsonb(e.images)}, updated_at = now()
      where id = ${id}`);
  }

  /** Records the user's reaction; false when it was there already. */
  async insertReaction(contentId: string, userId: string): Promise<boolean> {
    const rows = await this.db.rows(sql`
      insert into content_reactions (content_id, user_id) values (${contentId}, ${userId})
      on conflict do nothing returning content_id`);
    return rows.length > 0;
  }

  /** Removes the user's reaction; false when there was none. */
  async deleteReaction(contentId: string, userId: string): Promise<boolean> {
    const rows = await this.db.rows(sql`
      delete from content_reactions where content_id = ${contentId} and user_id = ${userId} returning content_id`);
    return rows.length > 0;
  }

  /** Adds delta to the item's reaction count; returns the new count (0 when the item is gone). */
  async addToReactionCount(contentId: string, delta: number): Promise<number> {
    const [row] = await this.db.rows<{ reaction_count: number }>(sql`
      update contents set reaction_count = reaction_count + ${delta} where id = ${contentId}
      returning reaction_count`);
    return row?.reaction_count ?? 0;
  }

  /** A live item's owner, status and media, or null. */
  async findMedia(id: string): Promise<ContentMediaRow | null> {
    const [row] = await this.db.rows<ContentMediaRow>(sql`
      select ${MEDIA_COLUMNS} from contents where id = ${id} and deleted_at is null`);
    return row ?? null;
  }

  /** As findMedia, holding the row lock (inside a transaction) so concurrent uploads to one item serialise. */
  async findMediaForUpdate(id: string): Promise<ContentMediaRow | null> {
    const [row] = await this.db.rows<ContentMediaRow>(sql`
      select ${MEDIA_COLUMNS} from contents where id = ${id} and deleted_at is null for update`);
    return row ?? null;
  }

  /** The main video was uploaded: processing starts over from this file. */
  async markVideoProcessing(id: string, originalPath: string, originalName: string, size: number): Promise<void> {
    await this.db.rows(sql`
      update contents set status = 'processing', updated_at = now(),
        video = video || ${jsonb({
          status: 'processing',
          original_path: originalPath,
          size,
          error: null,
          error_code: null,
          playlist_path: null,
          thumbnail_path: null,
          resolution: null,
          duration: null,
        })} || jsonb_build_object('original_name', coalesce(nullif(video->>'original_name', ''), ${originalName}::text))
      where id = ${id}`);
  }

  async appendImages(id: string, images: StoredImage[]): Promise<void> {
    await this.db.rows(sql`update contents set images = coalesce(images, '[]'::jsonb) || ${jsonb(images)}, updated_at = now() where id = ${id}`);
  }

  /** Publishes a live item with its processed video; null when the item is gone. */
  async markVideoCompleted(id: string, video: ProcessedVideo): Promise<ContentMediaRow | null> {
    const [row] = await this.db.rows<ContentMediaRow>(sql`
      update contents set status = 'completed', updated_at = now(),
        video = video || ${jsonb({ ...video, status: 'completed', error: null, error_code: null })}
      where id = ${id} and deleted_at is null
      returning ${MEDIA_COLUMNS}`);
    return row ?? null;
  }

  /** Marks a live item's video failed; null when the item is gone. */
  async markVideoFailed(id: string, errorCode: string, reason: string): Promise<ContentMediaRow | null> {
    const [row] = await this.db.rows<ContentMediaRow>(sql`
      update contents set status = 'failed', updated_at = now(),
        video = video || ${jsonb({ status: 'failed', error: reason, error_code: errorCode })}
      where id = ${id} and deleted_at is null
      returning ${MEDIA_COLUMNS}`);
    return row ?? null;
  }

  /** Records that the media of a deleted item, or of one removed by moderation, is withdrawn. */
  async markMediaRemoved(id: string): Promise<void> {
    await this.db.rows(sql`
      update contents set media_removed_at = now()
      where id = ${id} and (deleted_at is not null or moderation_status = 'removed') and media_removed_at is null`);
  }

  /** Deleted items whose media is not withdrawn yet, oldest deletion first. */
  async deletedAwaitingMediaRemoval(limit: number): Promise<string[]> {
    const rows = await this.db.rows<{ id: string }>(sql`
      select id from contents
      where (deleted_at is not null or moderation_status = 'removed') and media_removed_at is null
      order by coalesce(deleted_at, updated_at) limit ${limit}`);
    return rows.map((r) => r.id);
  }

  // Leaving (CONTRACT §22).

  /** Deletes (softly) every live item of the uploader at once; answers their ids. */
  async softDeleteAllOf(uploaderId: string): Promise<string[]> {
    const rows = await this.db.rows<{ id: string }>(sql`
      update contents set deleted_at = now() where uploader_id = ${uploaderId} and deleted_at is null returning id`);
    return rows.map((r) => r.id);
  }

  /** The uploader's deleted items whose media are not yet withdrawn. */
  async awaitingMediaRemovalOf(uploaderId: string): Promise<string[]> {
    const rows = await this.db.rows<{ id: string }>(sql`
      select id from contents where uploader_id = ${uploaderId} and deleted_at is not null and media_removed_at is null`);
    return rows.map((r) => r.id);
  }

  /** Erasure: the uploader's deleted items whose media are gone (their reactions, comments and matches go with them). */
  async deleteWithdrawnOf(uploaderId: string): Promise<number> {
    const rows = await this.db.rows<{ id: string }>(sql`
      delete from contents where uploader_id = ${uploaderId} and deleted_at is not null and media_removed_at is not null returning id`);
    return rows.length;
  }

  /** Erasure: the user's reactions on any item, each item's count lowered to match; answers the items. */
  async deleteReactionsBy(userId: string): Promise<string[]> {
    const rows = await this.db.rows<{ id: string }>(sql`
      with gone as (delete from content_reactions where user_id = ${userId} returning content_id),
           counted as (select content_id, count(*)::int as n from gone group by content_id)
      update contents c set reaction_count = greatest(0, c.reaction_count - counted.n)
      from counted where c.id = counted.content_id
      returning c.id`);
    return rows.map((r) => r.id);
  }
}
