// The shapes the listing index and its feeders share: what a query asks (who, the search, the
// filters, an area, the uploaders left out), an order, a page, facet counts, and the row the index
// is fed. Kept apart so the index's pieces and the SQL that feeds them import these, not each other.
import type { ContentRow } from '../content-repository.js';
import type { FACET_NAMES, ListAllQuery } from '../schemas.js';
import type { Viewport } from './viewport.js';

/** Which live items a listing shows: published ones, plus the caller's own, or every one. */
export type ListingVisibility = { kind: 'published' } | { kind: 'published-or-own'; userId: string } | { kind: 'every' };

/** The filters of `GET /all` besides search, as its query gives them. */
export type ListingFilters = Pick<
  ListAllQuery,
  | 'lang'
  | 'price_from'
  | 'price_to'
  | 'area_from'
  | 'area_to'
  | 'unit_price'
  | 'unit_area'
  | 'amenities'
  | 'apartment_type'
  | 'project_status'
  | 'created_at_start_date'
  | 'created_at_end_date'
>;

/** The columns a listing may be ordered by (besides relevance, which needs a search). */
export type SortColumn = Exclude<ListAllQuery['column'], 'relevance'>;

/** An item as the listing index keeps it: its row, and its timestamps as microseconds since the epoch (exact order). */
export type IndexRow = ContentRow & {
  created_us: number;
  updated_us: number;
  langs: string[] | null;
  facet_apartment_types: string[] | null;
  facet_project_statuses: string[] | null;
  search_text: string | null;
};

export type FacetName = (typeof FACET_NAMES)[number];

/** A query as the index reads it: who asks, the filters, optionally an area and the uploaders left out. */
export interface FilterQuery {
  visibility: ListingVisibility;
  filters: ListingFilters;
  viewport?: Viewport | null;
  /** Uploaders whose items are left out (a caller's blocks, CONTRACT §21). */
  hidden?: ReadonlySet<string>;
}

/** What a query selects: a FilterQuery and the search text. */
export interface IndexQuery extends FilterQuery {
  search?: string;
}

/** The order of a listing: a column, or (with a search) relevance. */
export interface IndexSort {
  column: SortColumn | 'relevance';
  direction: 'asc' | 'desc';
}

/**
 * An item of a page: its id, the number of the write of its row the index holds (no other write
 * of any item has it), and its row, decoded when asked: ask before the index changes (in the
 * same turn of the event loop).
 */
export interface PageItem {
  id: string;
  version: number;
  row(): ContentRow;
}

export interface IndexPage {
  items: PageItem[];
  hasMore: boolean;
  total: number;
}

export interface PriceBucket {
  from: number | null;
  to: number | null;
  count: number;
}

export interface Facets {
  amenities?: Record<string, number>;
  apartment_type?: Record<string, number>;
  project_status?: Record<string, number>;
  price?: PriceBucket[];
}
