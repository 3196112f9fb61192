// The one item a first page of `GET /all` or `GET /feeds` may be given after the page cache (the
// sponsored slot of CONTRACT §26): the listings know a first page can get a caller's own item put
// in, not who pays for it. src/campaigns fills it; the composition root hands it over.
import type { JsonText } from '../../shared/json-text.js';
import type { Language } from '../values.js';

/** A place on the map: the centre a request names, or the one a viewer last browsed. */
export interface BrowsedPoint {
  latitude: number;
  longitude: number;
}

/** Who is asking: a signed-in user, or a client by its address as the rate limits count it (the slot keys it). */
export interface SlotViewer {
  userId: string | null;
  address: string;
}

export interface SlotRequest {
  viewer: SlotViewer;
  /** The centre the request names (`latitude`/`longitude`), remembered as the viewer's area. */
  at?: BrowsedPoint;
  listing: 'all' | 'feeds';
  /** The answer's items array. */
  itemsKey: string;
  canReadContact: boolean;
  lang: Language | undefined;
}

export interface FirstPageSlot {
  /** The page with the viewer's item in its slot, or as it is when none is due. */
  fill(page: JsonText, request: SlotRequest): Promise<JsonText>;
  /** The centre of the area a viewer browsed (a `/completed` viewport, an `area:watch`). */
  rememberArea(viewer: SlotViewer, point: BrowsedPoint): void;
}
