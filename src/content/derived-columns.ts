// Columns derived from a content item's listing data, recomputed on every write: the folded
// search text (accent- and case-free, indexed with pg_trgm), the languages present, and the
// lower-cased filter facets.
import { foldForSearch, type Language } from './values.js';

export interface LanguageBlock {
  lang: Language;
  project_name: string;
  description: string;
  legal_certificates: string | null;
  apartment_type: string | null;
  project_status: string | null;
  address: string;
  extra_description: string | null;
}

export interface RealEstateInfo {
  legal_certificates?: string | null;
  apartment_type?: string | null;
  project_status?: string | null;
}

export interface DerivedColumns {
  searchText: string;
  langs: Language[];
  apartmentTypes: string[];
  projectStatuses: string[];
}

const distinctLower = (values: (string | null | undefined)[]): string[] => [
  ...new Set(values.filter((v): v is string => !!v).map((v) => v.trim().toLowerCase())),
];

export function deriveColumns(blocks: LanguageBlock[], info: RealEstateInfo, hashTags: string[], amenities: string[]): DerivedColumns {
  const parts: string[] = [];
  for (const b of blocks) {
    parts.push(b.project_name, b.description, b.address, b.legal_certificates ?? '', b.apartment_type ?? '', b.project_status ?? '', b.extra_description ?? '');
  }
  parts.push(info.legal_certificates ?? '', info.apartment_type ?? '', info.project_status ?? '', ...hashTags, ...amenities);
  return {
    // A separator that no search term contains keeps terms from matching across fields.
    searchText: parts.map(foldForSearch).filter(Boolean).join(' | '),
    langs: blocks.map((b) => b.lang),
    apartmentTypes: distinctLower([info.apartment_type, ...blocks.map((b) => b.apartment_type)]),
    projectStatuses: distinctLower([info.project_status, ...blocks.map((b) => b.project_status)]),
  };
}
