// The daily roll-up: counts each finished UTC day once into daily_stats, so reading a long range
// does not rescan the source tables. A roll-up is a snapshot: a post deleted after its day was
// rolled up still counts on that day. Idempotent: it continues after the watermark (the last day
// rolled up), so a run after downtime catches up every missed day in one pass.
import { sql, type SQL } from 'drizzle-orm';
import type { AppContext } from '../context.js';
import { activityEvents } from './activity.js';
import { addDays, dayOf } from './days.js';

export interface RollupResult {
  from: string;
  to: string;
}

export async function rolledThrough(app: AppContext): Promise<string | null> {
  const [row] = await app.database.rows<{ day: string }>(sql`select rolled_through::text as day from daily_stats_watermark where id = 1`);
  return row?.day ?? null;
}

/** Rolls up every day after the watermark up to `lastDay` (normally yesterday). */
export async function rollUpThrough(app: AppContext, lastDay: string): Promise<RollupResult | null> {
  return app.db.transaction(async (tx) => {
    const rows = async <T>(q: SQL) => ((await tx.execute(q)) as unknown as { rows: T[] }).rows;
    const [mark] = await rows<{ day: string }>(sql`select rolled_through::text as day from daily_stats_watermark where id = 1 for update`);
    let from: string | null = mark ? addDays(mark.day, 1) : null;
    if (from === null) {
      // First run: start at the earliest activity there is.
      const [first] = await rows<{ t: Date | null }>(sql`
        select least((select min(created_at) from contents), (select min(created_at) from follows),
                     (select min(created_at) from content_reactions)) as t`);
      if (!first?.t) return null;
      from = dayOf(new Date(first.t));
    }
    if (from > lastDay) return null;
    const end = addDays(lastDay, 1);
    await rows(sql`delete from daily_stats where day >= ${from}::date and day <= ${lastDay}::date`);
    await rows(sql`
      insert into daily_stats (user_id, day, posts, followers, following, reactions)
      select e.user_id, e.day, sum(e.posts), sum(e.followers), sum(e.following), sum(e.reactions)
      from (${activityEvents(from, end, null)}) e
      group by e.user_id, e.day`);
    await rows(sql`
      insert into daily_stats_watermark (id, rolled_through) values (1, ${lastDay}::date)
      on conflict (id) do update set rolled_through = excluded.rolled_through, updated_at = now()`);
    return { from, to: lastDay };
  });
}
