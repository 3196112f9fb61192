// The rules of one content item: create, read, edit, delete, react. Who may do what is decided
// here (routes only check the permission each endpoint needs).
import path from 'node:path';
import type { AppContext } from '../context.js';
import type { Caller } from '../auth/index.js';
import type { StaffReach } from '../authorization/index.js';
import type { Queryable } from '../db/client.js';
import { badRequest, unauthorized } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { deriveColumns, type LanguageBlock, type RealEstateInfo } from './derived-columns.js';
import type { ContentEdit, ContentRepository, ContentRow, StoredImage, StoredVideo } from './content-repository.js';
import type { CreateContentInput, EditContentInput, LanguageBlockInput } from './schemas.js';
import type { ContentSerialiser } from './serialise.js';
import { DEFAULT_LANGUAGE, LANGUAGES } from './values.js';
import type { NotificationService } from '../notifications/index.js';
import { JsonText } from '../shared/json-text.js';
import type { ReadCache } from '../read-model/index.js';
import type { CachedItem } from '../read-model/index.js';
import type { BlockService } from '../blocks/index.js';
import { contentNotFound, mayManageContent, mayViewContent, viewerOf } from './access.js';
import type { ContentDetail, CreatedContent } from './detail-schemas.js';

function toBlock(b: LanguageBlockInput): LanguageBlock {
  return {
    lang: b.lang,
    project_name: b.project_name,
    description: b.description ?? '',
    legal_certificates: b.legal_certificates ?? null,
    apartment_type: b.apartment_type ?? null,
    project_status: b.project_status ?? null,
    address: b.address ?? '',
    extra_description: b.extra_description ?? null,
  };
}

const orderBlocks = (blocks: LanguageBlock[]) => [...blocks].sort((a, b) => LANGUAGES.indexOf(a.lang) - LANGUAGES.indexOf(b.lang));

/** What a delete asks of the media (src/media's MediaRemoval): take the item's files out of service before it answers. */
export interface ItemMediaWithdrawal {
  withdraw(contentId: string): Promise<void>;
}

export class ContentService {
  constructor(
    private readonly app: AppContext,
    private readonly repository: ContentRepository,
    private readonly serialiser: ContentSerialiser,
    private readonly mediaRemoval: ItemMediaWithdrawal,
    private readonly notifications: NotificationService,
    /** Live items and their serialised details, dropped by the events that change them (src/read-model/). */
    private readonly items: ReadCache<string, CachedItem<ContentRow>>,
    private readonly blocks: BlockService,
    /** Whom staff may act on: an edit or deletion of another user's item is one such action. */
    private readonly staff: StaffReach,
  ) {}

  /** A live item with its uploader: from the read model, else the database (and then kept). */
  private async liveItem(id: string): Promise<CachedItem<ContentRow> | null> {
    const cached = this.items.get(id);
    if (cached) return cached;
    const epoch = this.items.epoch();
    const row = await this.repository.findLive(id);
    if (!row) return null;
    const item: CachedItem<ContentRow> = { row, answers: new Map() };
    this.items.set(id, item, epoch);
    return item;
  }

  async create(caller: Caller, input: CreateContentInput): Promise<CreatedContent> {
    const blocks = orderBlocks(input.content_info.map(toBlock));
    // The upload-flow form carries the listing values per language: the item-level values are
    // those of the English block (else the first block that has them).
    const pick = (key: 'legal_certificates' | 'apartment_type' | 'project_status') =>
      input.real_estate_info?.[key] ?? blocks.find((b) => b.lang === DEFAULT_LANGUAGE)?.[key] ?? blocks.find((b) => b[key])?.[key] ?? null;
    const realEstateInfo: RealEstateInfo = {
      legal_certificates: pick('legal_certificates'),
      apartment_type: pick('apartment_type'),
      project_status: pick('project_status'),
    };
    const hashTags = input.hash_tags ?? [];
    const amenities = input.amenities ?? [];
    const video: StoredVideo = {
      original_name: input.video?.original_name ?? null,
      size: input.video?.size ?? null,
      resolution: null,
      duration: null,
      status: 'pending',
      original_path: null,
      playlist_path: null,
      thumbnail_path: null,
      error: null,
    };
    const images: StoredImage[] = (input.images ?? []).map((img) => ({ id: newId(), path: null, name: img.name, url: img.url }));
    const id = newId();
    const row = await this.repository.insert({
      id,
      uploaderId: caller.userId,
      price: input.price,
      unitPrice: input.unit_price,
      area: input.area,
      unitArea: input.unit_area,
      latitude: input.geo?.latitude ?? null,
      longitude: input.geo?.longitude ?? null,
      hashTags,
      profitRate: input.profit_rate ?? null,
      amenities,
      realEstateInfo,
      isMultiLanguage: input.isMultiLanguage ?? blocks.length > 1,
      contentInfo: blocks,
      derived: deriveColumns(blocks, realEstateInfo, hashTags, amenities),
      video,
      images,
    });
    await this.app.events.publishAndWait('content.created', { contentId: id, uploaderId: caller.userId });
    return {
      id: row.id,
      price: input.price,
      unit_price: input.unit_price,
      area: input.area,
      unit_area: input.unit_area,
      status: row.status,
      created_at: row.created_at.toISOString(),
    };
  }

  /**
   * A live item the caller may see. Items that are not `completed` yet (or failed) are visible
   * to their uploader and administrators only: 401 for an anonymous caller (logging in may help),
   * 404 for other users (their existence is not revealed).
   */
  async findVisible(caller: Caller | null, id: string): Promise<ContentRow> {
    return (await this.visibleItem(caller, id)).row;
  }

  private async visibleItem(caller: Caller | null, id: string): Promise<CachedItem<ContentRow>> {
    const item = await this.liveItem(id);
    if (!item) throw contentNotFound();
    if (!mayViewContent(caller, item.row)) {
      // A held or removed item (CONTRACT §21) is 404 to everyone but its owner, signed in or not.
      const moderated = item.row.status === 'under_review' || item.row.status === 'removed';
      if (!caller && !moderated) throw unauthorized('content.error.restricted', 'This content is not published yet');
      throw contentNotFound();
    }
    return item;
  }

  /** The detail answer (ContentSerialiser.detail), serialised once per item and kind of viewer while the item stays unchanged. */
  async detailAnswer(caller: Caller | null, id: string): Promise<JsonText> {
    const item = await this.visibleItem(caller, id);
    const viewer = viewerOf(caller);
    const key = viewer.canReadContact ? 'detail:contact' : 'detail';
    let answer = item.answers.get(key);
    if (!answer) {
      answer = JsonText.of(this.serialiser.detail(item.row, viewer));
      item.answers.set(key, answer);
    }
    return answer;
  }

  /**
   * Soft delete: owner or `update:any_content` (401 otherwise, as for editing: SPEC §7). The item's
   * media is withdrawn before the answer, so no node serves it once the client hears "deleted".
   */
  async remove(caller: Caller, id: string): Promise<void> {
    const row = await this.repository.findLive(id);
    if (!row) throw contentNotFound();
    if (!mayManageContent(caller, row)) throw unauthorized('content.error.forbidden', 'Only the owner or an administrator may delete this content');
    const deleted = await this.staffWrite(caller, 'content.delete', id, async (tx) => {
      if (row.uploader_id !== caller.userId) await this.staff.check(tx, caller, row.uploader_id, 'takes');
      return this.repository.in(tx).softDelete(id);
    });
    if (!deleted) throw contentNotFound();
    await this.app.events.publishAndWait('content.deleted', { contentId: id, uploaderId: row.uploader_id });
    try {
      await this.mediaRemoval.withdraw(id);
    } catch (err) {
      // The delete is committed; the media-removal job retries the withdrawal.
      this.app.log.error({ err, contentId: id }, 'could not withdraw the media of deleted content');
    }
  }

  async edit(caller: Caller, id: string, input: EditContentInput): Promise<ContentDetail> {
    const updated = await this.updateLocked(caller, id, (current) => {
      if (!mayManageContent(caller, current)) throw unauthorized('content.error.forbidden', 'Only the owner or an administrator may edit this content');
      const blocks = new Map(current.content_info.map((b) => [b.lang, b]));
      for (const lang of LANGUAGES) {
        const given = input.languages[lang];
        if (!given) continue;
        const before = blocks.get(lang);
        blocks.set(lang, {
          lang,
          project_name: given.projectName,
          description: given.description,
          address: given.address,
          legal_certificates: input.legalStatus ?? before?.legal_certificates ?? null,
          apartment_type: before?.apartment_type ?? null,
          project_status: before?.project_status ?? null,
          extra_description: before?.extra_description ?? null,
        });
      }
      const contentInfo = orderBlocks([...blocks.values()]);
      const realEstateInfo: RealEstateInfo = {
        ...current.real_estate_info,
        legal_certificates: input.legalStatus ?? current.real_estate_info.legal_certificates ?? null,
      };
      const amenities = input.amenities ?? current.amenities;
      return {
        price: input.price,
        area: input.area,
        latitude: input.location.latitude,
        longitude: input.location.longitude,
        amenities,
        realEstateInfo,
        contentInfo,
        derived: deriveColumns(contentInfo, realEstateInfo, current.hash_tags, amenities),
        images: input.images ? this.keptImages(current.images, input.images) : current.images,
      };
    });
    if (!updated) throw contentNotFound();
    await this.app.events.publishAndWait('content.changed', { contentId: id, uploaderId: updated.uploader_id });
    return this.serialiser.detail(updated, viewerOf(caller));
  }

  /**
   * Applies an edit computed by `build` from the current row, holding the row lock so a
   * concurrent upload (which appends images) cannot be lost. `build` may throw to refuse.
   * Returns the edited row, read under the same lock (a delete cannot come between); null when
   * the item is gone.
   */
  private updateLocked(caller: Caller, id: string, build: (current: ContentRow) => ContentEdit): Promise<ContentRow | null> {
    return this.staffWrite(caller, 'content.edit', id, async (tx) => {
      const contents = this.repository.in(tx);
      const current = await contents.findLiveForUpdate(id);
      if (!current) return null;
      const edit = build(current);
      // Someone else's item (update:any_content) is a staff action on its owner.
      if (current.uploader_id !== caller.userId) await this.staff.check(tx, caller, current.uploader_id, 'takes');
      await contents.applyEdit(id, edit);
      return contents.findLive(id);
    });
  }

  /** A write of an item in one transaction; a refusal of StaffReach in it is audited as `<action>.refused`. */
  private staffWrite<T>(caller: Caller, action: string, id: string, write: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.staff.audited(caller, { action, targetType: 'content', targetId: id }, () => this.app.database.transaction(write));
  }

  /**
   * On edit, `images` names the attached images to keep, in display order: each name must be
   * the name (or stored file name) of an image already attached to the item.
   */
  private keptImages(attached: StoredImage[], names: string[]): StoredImage[] {
    const kept: StoredImage[] = [];
    for (const name of names) {
      const image = attached.find((img) => img.name === name || (img.path && path.posix.basename(img.path) === name));
      if (!image)
        throw badRequest('content.error.unknown_image', `Image ${name} is not attached to this content`, {
          field: 'images',
          constraint: 'attached image name',
        });
      if (kept.includes(image)) throw badRequest('content.error.duplicate_image', `Image ${name} is listed twice`, { field: 'images', constraint: 'unique' });
      kept.push(image);
    }
    return kept;
  }

  /** Likes (reacted=true) or unlikes the item; idempotent. Returns the new state and count. */
  async react(caller: Caller, id: string, reacted: boolean) {
    const item = await this.findVisible(caller, id);
    // Taking a like back stays possible across a block: it adds no contact.
    if (reacted) await this.blocks.assertMayReact(caller.userId, [item.uploader_id]);
    const { changed, count } = await this.setReaction(id, caller.userId, reacted, item.uploader_id);
    if (changed && reacted) this.notifications.deliverSoon();
    if (changed) await this.app.events.publishAndWait('reaction.changed', { contentId: id, userId: caller.userId, reacted });
    return { reacted, reaction_count: count };
  }

  /**
   * Adds (reacted=true) or removes the caller's reaction and keeps `reaction_count` equal to the
   * number of reaction rows, in one transaction (with the uploader's `reaction` notification of
   * a new like). Returns whether anything changed and the count.
   */
  private setReaction(contentId: string, userId: string, reacted: boolean, uploaderId: string): Promise<{ changed: boolean; count: number }> {
    return this.app.database.transaction(async (tx) => {
      const contents = this.repository.in(tx);
      const changed = reacted ? await contents.insertReaction(contentId, userId) : await contents.deleteReaction(contentId, userId);
      if (changed && reacted) await this.notifications.notifyReaction(tx, { userId: uploaderId, actorId: userId, contentId });
      const delta = changed ? (reacted ? 1 : -1) : 0;
      return { changed, count: await contents.addToReactionCount(contentId, delta) };
    });
  }
}
