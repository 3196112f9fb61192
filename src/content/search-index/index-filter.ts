// What a listing query asks of each item, as the listing index tests it (CONTRACT §23): who may
// see it, the filters of `/all` (as filterConditions writes them in SQL for saved searches), a map area, and the
// uploaders the caller blocked. One function tests an item against all of it over the item
// slots' typed arrays and says which groups failed, so a facet can count the items that fail
// only its own filter. A search's matches are not tested here: the index selects them as bits.
import type { ItemSlots } from './index-slots.js';
import type { FacetName, FilterQuery } from './index-types.js';
import type { Viewport } from './viewport.js';

/** The bit of each facet's own filter in what `failures` answers; OTHER for every other condition. */
export const FACET_BIT: Record<FacetName, number> = { amenities: 1, apartment_type: 2, project_status: 4, price: 8 };
const OTHER = 16;

/** The codes of the wanted values; null when none of them is known (nothing can match). */
function wantedCodes(values: string[] | undefined, find: (v: string) => number, fold: (v: string) => string): number[] | null | undefined {
  if (!values?.length) return undefined;
  const codes = values.map((v) => find(fold(v))).filter((c) => c >= 0);
  return codes.length ? codes : null;
}

export class ItemFilter {
  private readonly everyone: boolean;
  private readonly own: number;
  private readonly langBit: number;
  private readonly priceFrom: number;
  private readonly priceTo: number;
  private readonly areaFrom: number;
  private readonly areaTo: number;
  private readonly createdFrom: number;
  private readonly createdTo: number;
  private readonly unitPrice: number | null;
  private readonly unitArea: number | null;
  private readonly amenities: number[] | null;
  private readonly apartmentTypes: number[] | null | undefined;
  private readonly projectStatuses: number[] | null | undefined;
  private readonly viewport: Viewport | null;
  private readonly hidden: ReadonlySet<number> | null;
  // The slots' arrays, read once per query (they are replaced only when the slots grow).
  private readonly published: Uint8Array;
  private readonly uploader: Int32Array;
  private readonly langMask: Int32Array;
  private readonly area: Float64Array;
  private readonly created: Float64Array;
  private readonly price: Float64Array;
  /** Whether some condition besides who may see an item is asked (false: every visible item passes). */
  readonly filters: boolean;

  constructor(
    private readonly slots: ItemSlots,
    query: FilterQuery,
  ) {
    this.published = slots.published;
    this.uploader = slots.uploader;
    this.langMask = slots.langMask;
    this.area = slots.area;
    this.created = slots.createdUs;
    this.price = slots.price;
    const f = query.filters;
    const v = query.visibility;
    this.everyone = v.kind === 'every';
    // -1: no uploader code is negative, so only the published ones pass.
    this.own = v.kind === 'published-or-own' ? slots.uploaders.find(v.userId) : -1;
    this.langBit = f.lang ? slots.languageBit(f.lang) : -1;
    this.priceFrom = f.price_from ?? -Infinity;
    this.priceTo = f.price_to ?? Infinity;
    this.areaFrom = f.area_from ?? -Infinity;
    this.areaTo = f.area_to ?? Infinity;
    this.createdFrom = f.created_at_start_date ? f.created_at_start_date.getTime() * 1000 : -Infinity;
    this.createdTo = f.created_at_end_date ? f.created_at_end_date.getTime() * 1000 : Infinity;
    this.unitPrice = f.unit_price ? slots.units.find(f.unit_price) : null;
    this.unitArea = f.unit_area ? slots.units.find(f.unit_area) : null;
    // amenities: the item has every one listed (an unknown one: nothing has it).
    const amenityCodes = f.amenities?.length ? [...new Set(f.amenities)].map((a) => slots.amenities.find(a)) : null;
    this.amenities = amenityCodes;
    // apartment_type / project_status: any one listed, compared in lower case.
    const lower = (s: string) => s.toLowerCase();
    this.apartmentTypes = wantedCodes(f.apartment_type, (s) => slots.apartmentTypes.find(s), lower);
    this.projectStatuses = wantedCodes(f.project_status, (s) => slots.projectStatuses.find(s), lower);
    this.viewport = query.viewport ?? null;
    this.hidden = query.hidden?.size ? new Set([...query.hidden].map((id) => slots.uploaders.find(id)).filter((c) => c >= 0)) : null;
    this.filters =
      this.langBit !== -1 ||
      f.price_from !== undefined ||
      f.price_to !== undefined ||
      f.area_from !== undefined ||
      f.area_to !== undefined ||
      this.createdFrom !== -Infinity ||
      this.createdTo !== Infinity ||
      this.unitPrice !== null ||
      this.unitArea !== null ||
      this.amenities !== null ||
      this.apartmentTypes !== undefined ||
      this.projectStatuses !== undefined ||
      this.viewport !== null;
  }

  /** Whether the item in `slot` passes everything. */
  passes(slot: number): boolean {
    return this.failures(slot, false) === 0;
  }

  /**
   * The groups the item fails: FACET_BIT of each facet's own filter, OTHER for anything else.
   * With `all` false it stops at the first failure (any non-zero answer means "fails").
   */
  failures(slot: number, all: boolean): number {
    const s = this.slots;
    if (!this.everyone && this.published[slot] === 0 && this.uploader[slot] !== this.own) return OTHER;
    if (this.hidden !== null && this.hidden.has(this.uploader[slot])) return OTHER;
    if (this.filters) {
      if (this.langBit !== -1 && (this.langMask[slot] & this.langBit) === 0) return OTHER;
      const area = this.area[slot];
      if (area < this.areaFrom || area > this.areaTo) return OTHER;
      const created = this.created[slot];
      if (created < this.createdFrom || created > this.createdTo) return OTHER;
      if (this.unitPrice !== null && s.unitPrice[slot] !== this.unitPrice) return OTHER;
      if (this.unitArea !== null && s.unitArea[slot] !== this.unitArea) return OTHER;
      if (this.viewport !== null && !this.inViewport(slot, this.viewport)) return OTHER;
      let failed = 0;
      const price = this.price[slot];
      if (price < this.priceFrom || price > this.priceTo) {
        if (!all) return FACET_BIT.price;
        failed |= FACET_BIT.price;
      }
      if (this.amenities !== null && !hasEvery(s.amenityCodes[slot], this.amenities)) {
        if (!all) return FACET_BIT.amenities;
        failed |= FACET_BIT.amenities;
      }
      if (this.apartmentTypes !== undefined && !hasAny(s.apartmentTypeCodes[slot], this.apartmentTypes)) {
        if (!all) return FACET_BIT.apartment_type;
        failed |= FACET_BIT.apartment_type;
      }
      if (this.projectStatuses !== undefined && !hasAny(s.projectStatusCodes[slot], this.projectStatuses)) {
        if (!all) return FACET_BIT.project_status;
        failed |= FACET_BIT.project_status;
      }
      return failed;
    }
    return 0;
  }

  private inViewport(slot: number, v: Viewport): boolean {
    const lat = this.slots.latitude[slot];
    const lng = this.slots.longitude[slot];
    // NaN (no position) fails every comparison.
    if (!(lat >= v.south && lat <= v.north)) return false;
    return v.west <= v.east ? lng >= v.west && lng <= v.east : lng >= v.west || lng <= v.east;
  }
}

const hasEvery = (have: readonly number[], wanted: readonly number[]): boolean => wanted.every((code) => have.includes(code));
const hasAny = (have: readonly number[], wanted: readonly number[] | null): boolean => wanted !== null && wanted.some((code) => have.includes(code));
