// The sponsored slot of the first pages of `GET /feeds` and `GET /all` (CONTRACT §26): at most
// one sponsored item, at position 3 (last on a shorter page), marked `sponsored: {campaign_id}`
// and not repeated elsewhere on the page. Called once per answer, after the page cache (the
// cached page is everyone's; the slot is the caller's). Among the campaigns this viewer may be
// shown, the one furthest behind its daily pace wins (the smallest share of today's allowance
// granted so far), then the next one if it has nothing left to serve or the viewer has seen it
// 3 times today. docs/campaigns.md, "The sponsored slot".
import { z } from 'zod';
import type { BlockService } from '../blocks/index.js';
import { DEFAULT_LANGUAGE, type ContentSerialiser, type FirstPageSlot, type SlotRequest, type SlotViewer } from '../content/index.js';
import { JsonText } from '../shared/json-text.js';
import type { Logger } from '../shared/logger.js';
import type { ViewerKeys } from '../shared/viewer-key.js';
import { placeContains, type Point } from '../targeting/index.js';
import type { CampaignDelivery, Deliverable } from './delivery.js';
import type { ViewerState } from './viewer-state.js';

/** The mark of the sponsored item; other items carry none. */
export const sponsoredMarkSchema = z
  .object({ campaign_id: z.string() })
  .optional()
  .describe('Only on the sponsored item (at most one, third on the first page; CONTRACT §26)');

/** Showings of one campaign to one viewer per UTC day. */
export const FREQUENCY_CAP = 3;
/** The slot's place on the page: third, or last on a shorter page. */
const SLOT_INDEX = 2;

export class SponsoredSlot implements FirstPageSlot {
  /** Pages with a sponsored item in place, by page, by the roster's copy of the item, by variant. */
  private readonly placed = new WeakMap<JsonText, WeakMap<object, Map<string, JsonText>>>();
  constructor(
    private readonly delivery: CampaignDelivery,
    private readonly viewers: ViewerState,
    private readonly blocks: BlockService,
    private readonly serialiser: ContentSerialiser,
    private readonly viewerKeys: ViewerKeys,
    private readonly log: Logger,
  ) {}

  /** The viewer as frequency caps, areas and reach know it (the same key the views keep). */
  private keyOf(viewer: SlotViewer): string {
    return this.viewerKeys.of(viewer.userId ? { userId: viewer.userId } : { address: viewer.address });
  }

  /** The centre of the area a viewer browsed (a `/completed` viewport, an `area:watch`). */
  rememberArea(viewer: SlotViewer, point: Point): void {
    this.viewers.rememberArea(this.keyOf(viewer), point);
  }

  /** The page with the viewer's sponsored item in its slot, or as it is when none is due. */
  async fill(page: JsonText, request: SlotRequest): Promise<JsonText> {
    try {
      return await this.filled(page, request);
    } catch (err) {
      // A sponsored item is never worth a failed page: while the database or Redis is away the
      // page goes out without one (a block taken before the failure is given back by its lease).
      this.log.warn({ err: (err as Error).message }, 'sponsored slot left empty');
      return page;
    }
  }

  private async filled(page: JsonText, request: SlotRequest): Promise<JsonText> {
    // The viewer's key is a keyed hash for an anonymous client: made once per request.
    const viewer = this.keyOf(request.viewer);
    if (request.at) this.viewers.rememberArea(viewer, request.at);
    const campaigns = await this.delivery.deliverable();
    if (!campaigns.length) return page;
    const [area, relations] = await Promise.all([
      request.at ?? this.viewers.lastArea(viewer),
      request.viewer.userId ? this.blocks.relationsOf(request.viewer.userId) : null,
    ]);
    const day = this.delivery.now().toISOString().slice(0, 10);
    for (const campaign of campaigns) {
      if (campaign.ownerId === request.viewer.userId) continue;
      if (relations && (relations.blocked.includes(campaign.ownerId) || relations.blockedBy.includes(campaign.ownerId))) continue;
      if (!inTargetedArea(campaign, area)) continue;
      const block = await this.delivery.take(campaign);
      if (!block) continue;
      if (!(await this.viewers.takeShowing(viewer, campaign.id, day, FREQUENCY_CAP))) {
        this.delivery.giveBack(block);
        continue;
      }
      this.delivery.served(block, viewer, request.viewer.userId);
      return this.withItem(page, campaign, request);
    }
    return page;
  }

  /**
   * The page with the campaign's item in its slot. A cached first page is one object shared by
   * every request for it, and the item is the same for every viewer of one variant, so the answer
   * is kept beside the page (weakly: it goes with the page and with the roster's copy of the item)
   * and a page read by many viewers is put together once.
   */
  private withItem(page: JsonText, campaign: Deliverable, request: SlotRequest): JsonText {
    const variant = `${campaign.id}|${request.listing}|${request.canReadContact}|${request.lang ?? ''}`;
    let byItem = this.placed.get(page);
    if (!byItem) this.placed.set(page, (byItem = new WeakMap()));
    let byVariant = byItem.get(campaign.content);
    if (!byVariant) byItem.set(campaign.content, (byVariant = new Map<string, JsonText>()));
    let answer = byVariant.get(variant);
    if (!answer) byVariant.set(variant, (answer = this.placedItem(page, campaign, request)));
    return answer;
  }

  private placedItem(page: JsonText, campaign: Deliverable, request: SlotRequest): JsonText {
    const item =
      request.listing === 'all'
        ? this.serialiser.listingItem(campaign.content, { canReadContact: request.canReadContact }, request.lang)
        : this.serialiser.feedItem(campaign.content, request.lang ?? DEFAULT_LANGUAGE);
    const sponsored = Object.assign(item, { sponsored: { campaign_id: campaign.id } });
    return spliced(page.text, request.itemsKey, campaign.content.id, sponsored) ?? parsedAndPlaced(page.text, request.itemsKey, campaign.content.id, sponsored);
  }
}

// Every listed item's JSON starts with its id and then its price (ContentSerialiser's listing and
// feed items); a nested object never has a price right after an id.
const ITEM_START = /\{"id":"([0-9a-f-]{36})","price":/g;

/**
 * The page's text with the item put before its third item, without parsing the page (a first page
 * is tens of kilobytes: parsing and writing it again would cost more than the rest of the slot).
 * Null when the page has fewer than three items or holds the promoted item already: then the
 * page is parsed instead.
 */
function spliced(text: string, itemsKey: string, contentId: string, item: unknown): JsonText | null {
  const from = text.indexOf(`"${itemsKey}":[`);
  if (from < 0) return null;
  ITEM_START.lastIndex = from;
  let third = -1;
  let seen = 0;
  for (let match = ITEM_START.exec(text); match; match = ITEM_START.exec(text)) {
    if (match[1] === contentId) return null;
    seen += 1;
    if (seen === SLOT_INDEX + 1) third = match.index;
  }
  if (third < 0) return null;
  return new JsonText(`${text.slice(0, third)}${JSON.stringify(item)},${text.slice(third)}`);
}

function parsedAndPlaced(text: string, itemsKey: string, contentId: string, item: unknown): JsonText {
  const answer = JSON.parse(text) as Record<string, unknown>;
  const listed = Array.isArray(answer[itemsKey]) ? (answer[itemsKey] as { id?: string }[]) : [];
  const items: unknown[] = listed.filter((entry) => entry?.id !== contentId);
  items.splice(Math.min(SLOT_INDEX, items.length), 0, item);
  answer[itemsKey] = items;
  return JsonText.of(answer);
}

/** Untargeted campaigns reach everyone; targeted ones only a viewer whose last centre lies in one of their places. */
function inTargetedArea(campaign: Deliverable, area: Point | null): boolean {
  const locations = campaign.targeting.locations;
  if (!locations.length) return true;
  if (!area) return false;
  return locations.some((l) => placeContains(l.id, area, l.type === 'radius' ? l.radius_km : undefined));
}
