// Opens PGlite on a data directory with the extensions and start parameters the service needs.
// Plain JavaScript so that the database thread (pglite-worker.mjs) loads it as it is, from the
// sources under a TypeScript loader or a test runner and from dist/ alike; the main thread uses
// it too (PGLITE_THREAD=main), so both ways open the same database. Types: pglite-open.d.mts.

/** @param {{ pgdata: string, sharedBuffers: string }} options */
export async function openPglite(options) {
  const { PGlite } = await import('@electric-sql/pglite');
  const { pg_trgm } = await import('@electric-sql/pglite/contrib/pg_trgm');
  const { unaccent } = await import('@electric-sql/pglite/contrib/unaccent');
  const { cube } = await import('@electric-sql/pglite/contrib/cube');
  const { earthdistance } = await import('@electric-sql/pglite/contrib/earthdistance');
  return PGlite.create({
    dataDir: options.pgdata,
    extensions: { pg_trgm, unaccent, cube, earthdistance },
    // PGlite's own start parameters plus a smaller buffer cache: at PostgreSQL's default of
    // 128MB the shared buffers are most of an idle node's resident memory, and in embedded mode
    // the operating system's file cache holds the data files anyway (docs/operations.md).
    startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${options.sharedBuffers}`],
  });
}
