// The listing index's rows as text (docs/search.md, "Memory"): a row is kept as the JSON of its
// values in a fixed order (no field names: a quarter smaller than the row's own JSON), decoded back
// into a row only when a page shows it. JSON rather than the structured clone: smaller, and
// half the time to decode. The two lists below are in the same order (a test checks a round trip).
import type { ContentRow } from '../content-repository.js';

/** A row as text: its values in the order of `decodeRow`, dates as milliseconds. */
export function encodeRow(r: ContentRow): string {
  return JSON.stringify([
    r.id,
    r.uploader_id,
    r.status,
    r.price,
    r.unit_price,
    r.area,
    r.unit_area,
    r.price_per_area,
    r.latitude,
    r.longitude,
    r.hash_tags,
    r.profit_rate,
    r.amenities,
    r.real_estate_info,
    r.is_multi_language,
    r.content_info,
    r.video,
    r.images,
    r.reaction_count,
    r.comment_count,
    r.view_count,
    r.created_at.getTime(),
    r.updated_at.getTime(),
    r.uploader_given_name,
    r.uploader_family_name,
    r.uploader_picture,
    r.uploader_phone,
    r.moderation_note,
  ]);
}

/** The row `encodeRow` made the text of (one object literal: every row decoded has the same shape). */
export function decodeRow(text: string): ContentRow {
  const v = JSON.parse(text) as unknown[];
  return {
    id: v[0] as string,
    uploader_id: v[1] as string,
    status: v[2] as string,
    price: v[3] as number,
    unit_price: v[4] as string,
    area: v[5] as number,
    unit_area: v[6] as string,
    price_per_area: v[7] as number,
    latitude: v[8] as number | null,
    longitude: v[9] as number | null,
    hash_tags: v[10] as ContentRow['hash_tags'],
    profit_rate: v[11] as ContentRow['profit_rate'],
    amenities: v[12] as ContentRow['amenities'],
    real_estate_info: v[13] as ContentRow['real_estate_info'],
    is_multi_language: v[14] as boolean,
    content_info: v[15] as ContentRow['content_info'],
    video: v[16] as ContentRow['video'],
    images: v[17] as ContentRow['images'],
    reaction_count: v[18] as number,
    comment_count: v[19] as number,
    view_count: v[20] as number,
    created_at: new Date(v[21] as number),
    updated_at: new Date(v[22] as number),
    uploader_given_name: v[23] as string,
    uploader_family_name: v[24] as string,
    uploader_picture: v[25] as string | null,
    uploader_phone: v[26] as string,
    moderation_note: v[27] as string | null,
  };
}
