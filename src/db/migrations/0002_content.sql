-- Property content (video posts) and reactions ("likes") on them.
-- The content status follows its video: processing -> completed | failed (see CONTRACT §9).

CREATE TABLE contents (
  id uuid PRIMARY KEY,
  uploader_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  status text NOT NULL DEFAULT 'processing' CHECK (status IN ('processing', 'completed', 'failed')),
  price double precision NOT NULL CHECK (price > 0),
  unit_price text NOT NULL,
  area double precision NOT NULL CHECK (area > 0),
  unit_area text NOT NULL,
  price_per_area double precision GENERATED ALWAYS AS (price / area) STORED,
  -- Decimal degrees; both null when the item has no location.
  latitude double precision CHECK (latitude BETWEEN -90 AND 90),
  longitude double precision CHECK (longitude BETWEEN -180 AND 180),
  hash_tags jsonb NOT NULL DEFAULT '[]',
  profit_rate jsonb,
  amenities text[] NOT NULL DEFAULT '{}',
  -- {legal_certificates, apartment_type, project_status} (the full creation form).
  real_estate_info jsonb NOT NULL DEFAULT '{}',
  is_multi_language boolean NOT NULL DEFAULT false,
  -- Array of language blocks {lang, project_name, description, legal_certificates, apartment_type,
  -- project_status, address, extra_description}, at most one per language.
  content_info jsonb NOT NULL DEFAULT '[]',
  -- Languages present in content_info (for the `lang` filter).
  langs text[] NOT NULL DEFAULT '{}',
  -- Lower-cased apartment_type / project_status values from real_estate_info and every language
  -- block (for the comma-separated filters).
  facet_apartment_types text[] NOT NULL DEFAULT '{}',
  facet_project_statuses text[] NOT NULL DEFAULT '{}',
  -- Lower-cased, accent-free text of every language block, hash tags and amenities, written by
  -- the application (unaccent() is not immutable, so it cannot feed an index expression).
  search_text text NOT NULL DEFAULT '',
  -- {original_name, size, resolution, duration, status, original_path, playlist_path,
  --  thumbnail_path, error}; paths are relative to MEDIA_DIR.
  video jsonb NOT NULL,
  -- Array of {id, path, name}.
  images jsonb NOT NULL DEFAULT '[]',
  -- Kept equal to the number of content_reactions rows, in the same transaction as each change.
  reaction_count integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz
);

CREATE INDEX contents_created_idx ON contents (created_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX contents_completed_created_idx ON contents (created_at DESC, id DESC)
  WHERE deleted_at IS NULL AND status = 'completed';
CREATE INDEX contents_uploader_created_idx ON contents (uploader_id, created_at DESC, id DESC) WHERE deleted_at IS NULL;
-- fastupdate off: rows go straight into the GIN trees instead of a pending list. Embedded mode has
-- no autovacuum to flush that list, and while it is long the planner (rightly) prices the index
-- above a sequential scan. Listings are read far more often than items are written.
CREATE INDEX contents_search_trgm_idx ON contents USING gin (search_text gin_trgm_ops) WITH (fastupdate = off)
  WHERE deleted_at IS NULL;
CREATE INDEX contents_amenities_idx ON contents USING gin (amenities) WITH (fastupdate = off) WHERE deleted_at IS NULL;
CREATE INDEX contents_completed_geo_idx ON contents (latitude, longitude)
  WHERE deleted_at IS NULL AND status = 'completed' AND latitude IS NOT NULL;
CREATE INDEX contents_price_idx ON contents (price) WHERE deleted_at IS NULL;

CREATE TABLE content_reactions (
  content_id uuid NOT NULL REFERENCES contents(id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (content_id, user_id)
);
CREATE INDEX content_reactions_user_idx ON content_reactions (user_id, created_at);
