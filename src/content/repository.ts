// The queries on `contents` and `content_reactions` that create, read, change and delete one item.
// Listing queries live in listings.ts and feed.ts.
import { sql, type SQL } from 'drizzle-orm';
import type { DatabaseHandle } from '../db/client.js';
import type { ContentRow, StoredImage, StoredVideo } from './serialise.js';
import type { DerivedColumns, LanguageBlock, RealEstateInfo } from './derived-columns.js';

/** Every column a response needs: the item and its uploader. Use with `from contents c join users u`. */
export const CONTENT_COLUMNS = sql`
  c.id, c.uploader_id, c.status, c.price, c.unit_price, c.area, c.unit_area, c.price_per_area,
  c.latitude, c.longitude, c.hash_tags, c.profit_rate, c.amenities, c.real_estate_info,
  c.is_multi_language, c.content_info, c.video, c.images, c.reaction_count, c.created_at, c.updated_at,
  u.given_name as uploader_given_name, u.family_name as uploader_family_name,
  u.picture as uploader_picture, u.phone_number as uploader_phone`;

export const jsonb = (value: unknown): SQL => sql`${JSON.stringify(value)}::jsonb`;
/**
 * A text[] parameter (drizzle would expand a JS array into a list of parameters), sent as one
 * bound array literal (`{"a","b\"c"}`: every element quoted, `"` and `\` backslash-escaped).
 * It must be a value the planner can see: written as `array(select … from jsonb…)` it was a
 * sub-select whose result the planner does not know, so `amenities @> …` was estimated at the
 * default 0.5 % of rows whatever the value, and a common amenity (`pool`, 30 % of items) sent the
 * `/all` page through the amenities GIN bitmap and a sort of every match (docs/content.md).
 */
export const arrayLiteral = (values: string[]): string =>
  `{${values.map((v) => `"${v.replace(/[\\"]/g, (ch) => `\\${ch}`)}"`).join(',')}}`;
export const textArray = (values: string[]): SQL => sql`${arrayLiteral(values)}::text[]`;

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

export class ContentRepository {
  constructor(private readonly database: DatabaseHandle) {}

  async insert(c: NewContent): Promise<{ id: string; status: string; created_at: Date | string }> {
    const [row] = await this.database.rows<{ id: string; status: string; created_at: Date | string }>(sql`
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
    const [row] = await this.database.rows<ContentRow>(sql`
      select ${CONTENT_COLUMNS} from contents c join users u on u.id = c.uploader_id
      where c.id = ${id} and c.deleted_at is null`);
    return row ?? null;
  }

  /** Marks the item deleted; false when it was already gone. */
  async softDelete(id: string): Promise<boolean> {
    const rows = await this.database.rows(sql`
      update contents set deleted_at = now(), updated_at = now() where id = ${id} and deleted_at is null returning id`);
    return rows.length > 0;
  }

  /**
   * Applies an edit computed by `build` from the current row, holding the row lock so a
   * concurrent upload (which appends images) cannot be lost. `build` may throw to refuse.
   */
  async update(id: string, build: (current: ContentRow) => ContentEdit): Promise<boolean> {
    return this.database.db.transaction(async (tx) => {
      const locked = (await tx.execute(sql`
        select ${CONTENT_COLUMNS} from contents c join users u on u.id = c.uploader_id
        where c.id = ${id} and c.deleted_at is null for update of c`)) as unknown as { rows: ContentRow[] };
      const current = locked.rows[0];
      if (!current) return false;
      const e = build(current);
      await tx.execute(sql`
        update contents set price = ${e.price}, area = ${e.area}, latitude = ${e.latitude}, longitude = ${e.longitude},
          amenities = ${textArray(e.amenities)}, real_estate_info = ${jsonb(e.realEstateInfo)},
          content_info = ${jsonb(e.contentInfo)}, langs = ${textArray(e.derived.langs)},
          facet_apartment_types = ${textArray(e.derived.apartmentTypes)},
          facet_project_statuses = ${textArray(e.derived.projectStatuses)},
          search_text = ${e.derived.searchText}, images = ${jsonb(e.images)}, updated_at = now()
        where id = ${id}`);
      return true;
    });
  }

  /**
   * Adds (reacted=true) or removes the caller's reaction and keeps `reaction_count` equal to the
   * number of reaction rows, in one transaction. Returns whether anything changed and the count.
   */
  async setReaction(contentId: string, userId: string, reacted: boolean): Promise<{ changed: boolean; count: number }> {
    return this.database.db.transaction(async (tx) => {
      const changedRows = reacted
        ? await tx.execute(sql`
            insert into content_reactions (content_id, user_id) values (${contentId}, ${userId})
            on conflict do nothing returning content_id`)
        : await tx.execute(sql`
            delete from content_reactions where content_id = ${contentId} and user_id = ${userId} returning content_id`);
      const changed = (changedRows as unknown as { rows: unknown[] }).rows.length > 0;
      const delta = changed ? (reacted ? 1 : -1) : 0;
      const res = (await tx.execute(sql`
        update contents set reaction_count = reaction_count + ${delta} where id = ${contentId}
        returning reaction_count`)) as unknown as { rows: { reaction_count: number }[] };
      return { changed, count: res.rows[0]?.reaction_count ?? 0 };
    });
  }
}
