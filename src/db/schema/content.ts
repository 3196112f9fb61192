// Drizzle mirror of migrations/0002_content.sql (the SQL file is the source of truth).
import { pgTable, uuid, text, boolean, timestamp, integer, doublePrecision, jsonb, primaryKey } from 'drizzle-orm/pg-core';

export const contents = pgTable('contents', {
  id: uuid('id').primaryKey(),
  uploaderId: uuid('uploader_id').notNull(),
  status: text('status').notNull().default('processing'),
  price: doublePrecision('price').notNull(),
  unitPrice: text('unit_price').notNull(),
  area: doublePrecision('area').notNull(),
  unitArea: text('unit_area').notNull(),
  pricePerArea: doublePrecision('price_per_area'),
  latitude: doublePrecision('latitude'),
  longitude: doublePrecision('longitude'),
  hashTags: jsonb('hash_tags').notNull().default([]),
  profitRate: jsonb('profit_rate'),
  amenities: text('amenities').array().notNull().default([]),
  realEstateInfo: jsonb('real_estate_info').notNull().default({}),
  isMultiLanguage: boolean('is_multi_language').notNull().default(false),
  contentInfo: jsonb('content_info').notNull().default([]),
  langs: text('langs').array().notNull().default([]),
  facetApartmentTypes: text('facet_apartment_types').array().notNull().default([]),
  facetProjectStatuses: text('facet_project_statuses').array().notNull().default([]),
  searchText: text('search_text').notNull().default(''),
  video: jsonb('video').notNull(),
  images: jsonb('images').notNull().default([]),
  reactionCount: integer('reaction_count').notNull().default(0),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  deletedAt: timestamp('deleted_at', { withTimezone: true }),
});

export const contentReactions = pgTable(
  'content_reactions',
  {
    contentId: uuid('content_id').notNull(),
    userId: uuid('user_id').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.contentId, t.userId] })],
);
