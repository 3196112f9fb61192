// Completes every active or paused campaign whose end time is at or before `now`. Idempotent
// (a completed campaign is not touched again) and catches up after downtime by itself, since it
// takes everything due, however late. `completed_at` is the campaign's end, not the job's tick.
import { sql } from 'drizzle-orm';
import type { DatabaseHandle } from '../db/client.js';

export async function completeDueCampaigns(database: Pick<DatabaseHandle, 'rows'>, now: Date): Promise<string[]> {
  const rows = await database.rows<{ id: string }>(
    sql`update campaigns set status = 'completed', completed_at = ends_at, updated_at = ${now}
        where status in ('active', 'paused') and ends_at <= ${now}
        returning id`,
  );
  return rows.map((r) => r.id);
}
