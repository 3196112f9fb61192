// Fixtures that write the database directly (the state the video worker writes, a row removed
// by hand) change what the service's read model holds without it hearing: like any process that
// changes data behind the service, they announce the change on the node's domain event bus,
// which tells the caches of every node (src/read-model/).
import { sql } from 'drizzle-orm';
import type { TestServer } from './server.js';

/** After a direct write to the item `contentId` (any column a listing or detail shows). */
export async function announceContentChanged(server: TestServer, contentId: string): Promise<void> {
  const [row] = await server.service.app.database.rows<{ uploader_id: string }>(sql`select uploader_id from contents where id = ${contentId}`);
  if (row) await server.service.app.events.publishAndWait('content.changed', { contentId, uploaderId: row.uploader_id });
}
