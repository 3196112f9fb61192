// Queries on `push_subscriptions` and `push_deliveries` (migration 0009): the browsers a user
// registered for Web Push, and the durable queue of pushes to send them.
import { sql } from 'drizzle-orm';
import { Repository } from '../db/repository.js';
import { sqlList } from '../db/sql-fragments.js';

export interface PushSubscriptionKeys {
  endpoint: string;
  p256dh: string;
  auth: string;
}

/** A claimed delivery: where to send, what (the notification's columns), and how many tries so far. */
export interface DueDelivery extends PushSubscriptionKeys {
  id: string;
  user_id: string;
  subscription_id: string;
  notification_id: string;
  attempts: number;
  type: string;
  subject_type: string;
  subject_id: string;
  data: Record<string, unknown>;
  created_at: Date;
}

export class PushRepository extends Repository {
  /**
   * Stores the subscription for `userId` (an endpoint registered before, by anyone, moves to
   * them with its new keys: a browser belongs to whoever signed in last), then keeps only the
   * user's `keep` newest subscriptions.
   */
  async upsertSubscription(id: string, userId: string, keys: PushSubscriptionKeys, keep: number): Promise<void> {
    await this.db.rows(sql`
      insert into push_subscriptions (id, user_id, endpoint, p256dh, auth)
      values (${id}, ${userId}, ${keys.endpoint}, ${keys.p256dh}, ${keys.auth})
      on conflict (endpoint) do update
        set user_id = excluded.user_id, p256dh = excluded.p256dh, auth = excluded.auth, created_at = now()`);
    await this.db.rows(sql`
      delete from push_subscriptions where user_id = ${userId} and id not in (
        select id from push_subscriptions where user_id = ${userId} order by created_at desc, id desc limit ${keep})`);
  }

  /** Removes the user's subscription at `endpoint`; false when they have none there. */
  async deleteSubscription(userId: string, endpoint: string): Promise<boolean> {
    const rows = await this.db.rows<{ id: string }>(sql`
      delete from push_subscriptions where user_id = ${userId} and endpoint = ${endpoint} returning id`);
    return rows.length > 0;
  }

  /** Removes a subscription its push service declared gone (404/410); its queued pushes go with it. */
  async deleteSubscriptionById(id: string): Promise<void> {
    await this.db.rows(sql`delete from push_subscriptions where id = ${id}`);
  }

  /**
   * Queues one push per (notification, subscription of its recipient) for recipients whose
   * notifications.push_notifications setting is on (absent = the default, on), in one
   * statement that reads the settings overrides too (a join on user_settings). A notification
   * pushed again (a reaction group bumped) re-arms its finished rows.
   */
  async enqueue(notificationIds: string[]): Promise<void> {
    if (!notificationIds.length) return;
    await this.db.rows(sql`
      insert into push_deliveries (id, notification_id, subscription_id)
      select gen_random_uuid(), n.id, s.id
      from notifications n
      join push_subscriptions s on s.user_id = n.user_id
      left join user_settings us on us.user_id = n.user_id
      where n.id in (${sqlList(notificationIds)})
        and coalesce((us.overrides->>'notifications.push_notifications')::boolean, true)
      on conflict (notification_id, subscription_id) do update
        set attempts = 0, next_attempt_at = now(), claimed_until = null, done_at = null, outcome = null`);
  }

  /** Claims up to `limit` due deliveries for `leaseSeconds` (one worker each, across nodes). */
  claimDue(limit: number, leaseSeconds: number): Promise<DueDelivery[]> {
    return this.db.rows<DueDelivery>(sql`
      with picked as (
        select id from push_deliveries
        where done_at is null and next_attempt_at <= now() and (claimed_until is null or claimed_until < now())
        order by next_attempt_at limit ${limit} for update skip locked
      ), claimed as (
        update push_deliveries d set claimed_until = now() + make_interval(secs => ${leaseSeconds}), attempts = d.attempts + 1
        from picked where d.id = picked.id
        returning d.id, d.notification_id, d.subscription_id, d.attempts
      )
      select c.id, c.notification_id, c.subscription_id, c.attempts, s.user_id, s.endpoint, s.p256dh, s.auth,
             n.type, n.subject_type, n.subject_id, n.data, n.created_at
      from claimed c join push_subscriptions s on s.id = c.subscription_id join notifications n on n.id = c.notification_id`);
  }

  /** Deletes finished deliveries older than `days` days (their outcome is only of use for a while). */
  async deleteFinishedOlderThan(days: number): Promise<void> {
    await this.db.rows(sql`delete from push_deliveries where done_at < now() - make_interval(days => ${days})`);
  }

  async finish(id: string, outcome: string): Promise<void> {
    await this.db.rows(sql`update push_deliveries set done_at = now(), claimed_until = null, outcome = ${outcome} where id = ${id}`);
  }

  async retryLater(id: string, delaySeconds: number, outcome: string): Promise<void> {
    await this.db.rows(sql`
      update push_deliveries set claimed_until = null, outcome = ${outcome},
             next_attempt_at = now() + make_interval(secs => ${delaySeconds})
      where id = ${id}`);
  }

  /** Erasure (CONTRACT §22): the user's push subscriptions (their pending deliveries go with them). */
  async deleteAllOf(userId: string): Promise<void> {
    await this.db.rows(sql`delete from push_subscriptions where user_id = ${userId}`);
  }
}
