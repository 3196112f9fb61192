// Web Push (CONTRACT §17): subscriptions per user, and delivery of notifications to users with
// no socket open on /notifications. Pushes wait in `push_deliveries` (queued in the transaction
// that claims the notification for delivery), a worker sends them with RFC 8291 encryption and
// VAPID (the web-push library), retries with backoff, and drops a subscription its push service
// answers 404/410. Whether the user has a socket is asked at send time through a probe the
// realtime door offers and the composition root plugs in (`usePresence`, service.ts), so this
// domain code knows nothing of sockets.
// Endpoints pass the outbound gate (CONTRACT §19): at subscribe time (a host that does not
// resolve yet is accepted) and again at every send, which connects to the address it checked.
import fs from 'node:fs';
import https from 'node:https';
import tls from 'node:tls';
import webpush from 'web-push';
import type { AppContext } from '../context.js';
import type { Queryable } from '../db/client.js';
import { badRequest, notFound } from '../shared/errors.js';
import type { OutboundGate } from '../outbound/index.js';
import { newId } from '../shared/ids.js';
import type { DueDelivery, PushRepository } from './push-repository.js';
import type { ServiceSecretRepository } from '../secrets/index.js';
import { vapidKeys, vapidSubject, type VapidKeys } from './vapid.js';
import type { PushSubscriptionBody } from './schemas.js';
import { ClaimRounds } from '../shared/claim-rounds.js';

/** A user keeps at most this many browsers subscribed; a new one replaces the oldest. */
export const MAX_SUBSCRIPTIONS_PER_USER = 10;
/** Tries per push before it is given up (backoff 5 s, 20 s, 80 s, 320 s between them). */
const MAX_ATTEMPTS = 5;
const backoffSeconds = (attempts: number) => 5 * 4 ** (attempts - 1);
const CLAIM_BATCH = 50;
const LEASE_SECONDS = 60;
const SEND_TIMEOUT_MS = 10_000;
/** How long a push service keeps an undelivered message (seconds). */
const PUSH_TTL_SECONDS = 24 * 3600;
/** Push services accept about 4 KB of payload; larger `data` is left out (the inbox has it all). */
const MAX_PAYLOAD_BYTES = 3000;

/** Answers whether the user has a socket open on /notifications on any node. */
export type PresenceProbe = (userId: string) => Promise<boolean>;

export class PushService {
  private keys: Promise<VapidKeys> | null = null;
  private presence: PresenceProbe = async () => false;
  /** The delivery loop of this node (one run at a time; pokes during it ask for one more pass). */
  private readonly rounds = new ClaimRounds(() => this.deliverBatch(), CLAIM_BATCH);

  /** Extra trusted CAs when WEB_PUSH_CA_FILE names some (read once, for the life of the node). */
  private readonly caOptions: https.AgentOptions;

  constructor(
    private readonly app: AppContext,
    private readonly repository: PushRepository,
    private readonly secrets: ServiceSecretRepository,
    private readonly gate: OutboundGate,
  ) {
    const caFile = app.config.WEB_PUSH_CA_FILE;
    this.caOptions = caFile ? { ca: [...tls.rootCertificates, fs.readFileSync(caFile, 'utf8')] } : {};
  }

  /** The realtime layer tells how to know whether a user is connected (without it: never). */
  usePresence(probe: PresenceProbe): void {
    this.presence = probe;
  }

  async publicKey(): Promise<string> {
    return (await this.vapid()).publicKey;
  }

  async subscribe(userId: string, body: PushSubscriptionBody): Promise<{ endpoint: string }> {
    const checked = await this.gate.check(body.endpoint);
    if (!checked.ok && checked.refusal !== 'unresolvable') {
      throw badRequest('push.error.endpoint_not_allowed', 'This push endpoint is not allowed: its host must be a public address, without credentials', {
        field: 'endpoint',
        constraint: 'an https URL whose host resolves to public addresses only',
      });
    }
    await this.repository.upsertSubscription(newId(), userId, { endpoint: body.endpoint, ...body.keys }, MAX_SUBSCRIPTIONS_PER_USER);
    return { endpoint: body.endpoint };
  }

  async unsubscribe(userId: string, endpoint: string): Promise<{ endpoint: string }> {
    if (!(await this.repository.deleteSubscription(userId, endpoint))) {
      throw notFound('push.error.subscription_not_found', 'No push subscription of yours has this endpoint', {
        field: 'endpoint',
        constraint: 'a subscription of the caller',
      });
    }
    return { endpoint };
  }

  /** Queues the Web Push of these notifications, in the caller's transaction (see NotificationService). */
  enqueue(tx: Queryable, notificationIds: string[]): Promise<void> {
    return this.repository.in(tx).enqueue(notificationIds);
  }

  /** Forgets finished pushes after a week (the retention job). */
  pruneFinished(): Promise<void> {
    return this.repository.deleteFinishedOlderThan(7);
  }

  deliverSoon(): void {
    if (this.rounds.isStopped) return;
    void this.deliverDue().catch((err) => this.app.log.warn({ err }, 'web push delivery round failed; retried by the next round'));
  }

  /** Sends every due push (rounds of CLAIM_BATCH); overlapping calls on one node share a run. */
  async deliverDue(): Promise<void> {
    await this.rounds.run();
  }

  private async deliverBatch(): Promise<number> {
    const due = await this.repository.claimDue(CLAIM_BATCH, LEASE_SECONDS);
    await Promise.all(due.map((d) => this.deliverOne(d)));
    return due.length;
  }

  /** The node is shutting down: starts no more rounds and waits for the one in progress (before the database closes). */
  stop(): Promise<void> {
    return this.rounds.stop();
  }

  private async deliverOne(delivery: DueDelivery): Promise<void> {
    let connected: boolean;
    try {
      connected = await this.presence(delivery.user_id);
    } catch {
      // Presence unknown (a node did not answer in time): a push too many beats a missed one.
      connected = false;
    }
    if (connected) return this.repository.finish(delivery.id, 'skipped: socket connected');
    const keys = await this.vapid();
    const checked = await this.gate.check(delivery.endpoint);
    if (!checked.ok) {
      // A host that stopped resolving may come back (retried); one that now names a non-public
      // address is never contacted, and its subscription is dropped.
      if (checked.refusal === 'unresolvable') return this.failed(delivery, 'send failed: host not resolved');
      this.app.log.warn(
        { subscriptionId: delivery.subscription_id, refusal: checked.refusal },
        'push endpoint refused by the outbound gate; subscription removed',
      );
      await this.repository.finish(delivery.id, `refused: ${checked.refusal}`);
      return this.repository.deleteSubscriptionById(delivery.subscription_id);
    }
    const agent = this.gate.httpsAgent(checked.target, this.caOptions);
    try {
      await webpush.sendNotification({ endpoint: delivery.endpoint, keys: { p256dh: delivery.p256dh, auth: delivery.auth } }, payloadOf(delivery), {
        vapidDetails: { subject: vapidSubject(this.app.config), publicKey: keys.publicKey, privateKey: keys.privateKey },
        TTL: PUSH_TTL_SECONDS,
        timeout: SEND_TIMEOUT_MS,
        agent,
      });
      await this.repository.finish(delivery.id, 'sent');
    } catch (err) {
      const status = (err as { statusCode?: number }).statusCode;
      if (status === 404 || status === 410) {
        this.app.log.info({ subscriptionId: delivery.subscription_id, status }, 'push subscription gone; removed');
        return this.repository.deleteSubscriptionById(delivery.subscription_id);
      }
      await this.failed(delivery, status ? `push service answered ${status}` : `send failed: ${(err as Error).message.slice(0, 200)}`);
    } finally {
      agent.destroy();
    }
  }

  /** Retried with backoff, or given up after MAX_ATTEMPTS. */
  private async failed(delivery: DueDelivery, outcome: string): Promise<void> {
    if (delivery.attempts >= MAX_ATTEMPTS) {
      this.app.log.warn({ deliveryId: delivery.id, outcome }, 'web push given up');
      return this.repository.finish(delivery.id, `gave up: ${outcome}`);
    }
    await this.repository.retryLater(delivery.id, backoffSeconds(delivery.attempts), outcome);
  }

  private vapid(): Promise<VapidKeys> {
    this.keys ??= vapidKeys(this.secrets).catch((err) => {
      this.keys = null;
      throw err;
    });
    return this.keys;
  }
}

/** What the service worker receives: the notification, without `data` when that would not fit. */
function payloadOf(d: DueDelivery): string {
  const full = {
    id: d.notification_id,
    type: d.type,
    subject: { type: d.subject_type, id: d.subject_id },
    data: d.data,
    created_at: d.created_at.toISOString(),
  };
  const text = JSON.stringify(full);
  return Buffer.byteLength(text) <= MAX_PAYLOAD_BYTES ? text : JSON.stringify({ ...full, data: {} });
}
