-- Indexes the plans of bench/listing-plans.ts at 100,000 items showed missing (docs/content.md,
-- "Plans at 100,000 items"). All partial on live items, like the listing queries.

-- Every sort column of `GET /all` as (column, id), the listing's exact order (ties on id; a
-- backward walk serves `desc`): a page is an ordered walk that stops once it has its rows, and a
-- remembered page boundary is a range on it. Without them each page of these orders read and
-- sorted every match (a sequential scan, 200-1,100 ms at 100,000 items). The (price, id) index
-- also serves the price_from/price_to ranges, as the (price) one it replaces did; (area, id) the
-- area ranges. reaction_count is indexed too although every reaction then updates the row's index
-- entries (no HOT update): the bench measures that cost beside the sort it saves.
DROP INDEX IF EXISTS contents_price_idx;
CREATE INDEX contents_price_id_idx ON contents (price, id) WHERE deleted_at IS NULL;
CREATE INDEX contents_area_id_idx ON contents (area, id) WHERE deleted_at IS NULL;
CREATE INDEX contents_price_per_area_id_idx ON contents (price_per_area, id) WHERE deleted_at IS NULL;
CREATE INDEX contents_updated_id_idx ON contents (updated_at, id) WHERE deleted_at IS NULL;
CREATE INDEX contents_reaction_count_id_idx ON contents (reaction_count, id) WHERE deleted_at IS NULL;

-- Filters on values few items have (a language, a listing value, a unit nobody uses here): the
-- planner knows them rare from the statistics, and without an index it could only walk the
-- order's index through every item (lang=ko: 220 ms server, 1.1 s embedded) or scan the table.
-- GIN without a pending list, like the other GIN indexes (migration 0002).
CREATE INDEX contents_langs_idx ON contents USING gin (langs) WITH (fastupdate = off) WHERE deleted_at IS NULL;
CREATE INDEX contents_apartment_types_idx ON contents USING gin (facet_apartment_types) WITH (fastupdate = off) WHERE deleted_at IS NULL;
CREATE INDEX contents_project_statuses_idx ON contents USING gin (facet_project_statuses) WITH (fastupdate = off) WHERE deleted_at IS NULL;
CREATE INDEX contents_unit_price_idx ON contents (unit_price) WHERE deleted_at IS NULL;
CREATE INDEX contents_unit_area_idx ON contents (unit_area) WHERE deleted_at IS NULL;
