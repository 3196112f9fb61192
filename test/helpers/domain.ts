// Services tested directly, with no server: a fresh database (a copy of the migrated embedded
// template, or with TEST_DATABASE_URL a new database on that server, migrations applied and roles
// seeded as a node does at start) opened through src/db/client.ts, and the node's repositories
// over it (createRepositories of src/services.ts). A test builds the service it tests with `new`,
// from these repositories, as the composition root does: what a service reaches is exactly what
// its constructor takes, and nothing of our database is mocked.
import { WakeUp } from '../../src/shared/wake-up.js';
import { afterAll, beforeAll } from 'vitest';
import { randomBytes, randomInt } from 'node:crypto';
import { createMediaStore } from '../../src/media/storage/create-store.js';
import { loadConfig } from '../../src/config.js';
import type { AppContext } from '../../src/context.js';
import { openDatabase } from '../../src/db/client.js';
import { applyMigrations } from '../../src/db/migrate.js';
import { seedRolesAndPermissions } from '../../src/authorization/seed.js';
import { DEFAULT_ROLE } from '../../src/authorization/catalogue.js';
import type { Caller } from '../../src/auth/caller.js';
import { deriveColumns, type LanguageBlock } from '../../src/content/derived-columns.js';
import type { DomainEvents } from '../../src/events.js';
import { NotificationService } from '../../src/notifications/service.js';
import { PushService } from '../../src/push/service.js';
import { OutboundGate } from '../../src/outbound/gate.js';
import { createRepositories, type Repositories } from '../../src/services.js';
import { BlockService } from '../../src/blocks/service.js';
import { ReadCache } from '../../src/read-model/read-cache.js';
import { DomainEventBus } from '../../src/event-bus.js';
import { newId } from '../../src/shared/ids.js';
import { createLogger } from '../../src/shared/logger.js';
import { OutboxSmsProvider } from '../../src/sms/provider.js';
import { testEnvironment } from './server.js';

export interface TestDomain {
  /** What services are built from: configuration, the database, a log, a real event bus, the SMS outbox. */
  app: AppContext;
  repositories: Repositories;
  /** The notification service (with its Web Push service): most services that notify take it. Built on first use. */
  notifications(): NotificationService;
  /** The block service (CONTRACT §21), with no cache (every read goes to the database). Built on first use. */
  blocks(): BlockService;
  /** A new user stored through the users repository, and the Caller a request of theirs resolves to. */
  createUser(options?: { role?: string }): Promise<Caller>;
  /** A content item of `uploaderId` (status processing, its video not uploaded), stored through the contents repository; its id. */
  createContent(uploaderId: string, values?: { price?: number; area?: number }): Promise<string>;
  /** Marks the item's video processed: the item is published (and queued for saved-search matching). */
  publish(contentId: string): Promise<void>;
  /** Stops what was built here, closes the database and removes it. */
  close(): Promise<void>;
}

/** Opens a fresh database and its repositories (see the top of this file). */
export async function openTestDomain(overrides: Record<string, string> = {}): Promise<TestDomain> {
  const { env, cleanup } = await testEnvironment(overrides);
  const config = loadConfig(env);
  const log = createLogger(env.LOG_LEVEL ?? 'silent');
  const database = await openDatabase(config, log);
  const repositories = createRepositories(database);
  // The embedded template has every migration; a server database starts empty. Either way the
  // database ends as a node leaves it at start (migrations, then the role catalogue).
  await applyMigrations(database, log);
  await seedRolesAndPermissions(database, repositories.roles);
  const app: AppContext = {
    config,
    database,
    log,
    events: new DomainEventBus(log),
    sms: new OutboxSmsProvider(config.smsOutboxFile),
    media: createMediaStore(config),
  };

  let built: { notifications: NotificationService; push: PushService } | null = null;
  let blocks: BlockService | null = null;
  return {
    app,
    repositories,
    notifications() {
      if (!built) {
        const push = new PushService(app, repositories.push, repositories.serviceSecrets, new OutboundGate(app.config.OUTBOUND_ALLOWED_HOSTS));
        built = {
          push,
          notifications: new NotificationService(
            app,
            repositories.notifications,
            repositories.users,
            repositories.settings,
            repositories.blocks,
            push,
            new WakeUp(),
          ),
        };
      }
      return built.notifications;
    },
    blocks() {
      blocks ??= new BlockService(
        app,
        repositories.blocks,
        repositories.follows,
        repositories.users,
        new ReadCache('blocks', { max: 1, ttlMs: 1 }, () => false),
      );
      return blocks;
    },
    async createUser({ role = DEFAULT_ROLE } = {}) {
      const id = newId();
      const username = `u_${randomBytes(5).toString('hex')}`;
      const phoneNumber = `+8490${String(randomInt(10_000_000)).padStart(7, '0')}`;
      await repositories.users.insert({
        id,
        username,
        passwordHash: 'not-a-password-hash',
        phoneNumber,
        phoneVerified: true,
        givenName: 'Test',
        familyName: username,
        role,
      });
      const grants = await repositories.roles.activeGrants();
      const permissions = new Set(grants.filter((g) => g.role === role).map((g) => g.permission));
      return { userId: id, sessionId: newId(), username, role, roles: [role], permissions };
    },
    async createContent(uploaderId, { price = 3_000_000_000, area = 70 } = {}) {
      const id = newId();
      const blocks: LanguageBlock[] = [
        {
          lang: 'en',
          project_name: 'River view',
          description: 'Two rooms',
          legal_certificates: null,
          apartment_type: null,
          project_status: null,
          address: 'District 1',
          extra_description: null,
        },
      ];
      await repositories.contents.insert({
        id,
        uploaderId,
        price,
        unitPrice: 'VND',
        area,
        unitArea: 'm2',
        latitude: null,
        longitude: null,
        hashTags: [],
        profitRate: null,
        amenities: [],
        realEstateInfo: {},
        isMultiLanguage: false,
        contentInfo: blocks,
        derived: deriveColumns(blocks, {}, [], []),
        video: {
          original_name: 'tour.mp4',
          size: 1000,
          resolution: null,
          duration: null,
          status: 'pending',
          original_path: null,
          playlist_path: null,
          thumbnail_path: null,
          error: null,
        },
        images: [],
      });
      return id;
    },
    async publish(contentId) {
      const processed = {
        resolution: '1280x720',
        duration: 30,
        size: 1000,
        playlist_path: `${contentId}/hls/master.m3u8`,
        thumbnail_path: `${contentId}/thumbnail.jpg`,
      };
      if (!(await repositories.contents.markVideoCompleted(contentId, processed))) throw new Error(`content ${contentId} is gone`);
    },
    async close() {
      await built?.notifications.stop();
      await built?.push.stop();
      await database.close();
      await cleanup();
    },
  };
}

/** What `run` answers, and the payloads of the `name` events the domain published while it ran. */
export async function published<K extends keyof DomainEvents & string, T>(
  domain: TestDomain,
  name: K,
  run: () => Promise<T>,
): Promise<{ result: T; events: DomainEvents[K][] }> {
  const events: DomainEvents[K][] = [];
  const unsubscribe = domain.app.events.subscribe(name, (payload) => void events.push(payload));
  try {
    return { result: await run(), events };
  } finally {
    unsubscribe();
  }
}

/** A fresh TestDomain for the enclosing file or describe block (opened before its tests, closed after). */
export function useTestDomain(overrides: Record<string, string> = {}): { readonly current: TestDomain } {
  let domain: TestDomain | null = null;
  beforeAll(async () => {
    domain = await openTestDomain(overrides);
  });
  afterAll(async () => {
    await domain?.close();
    domain = null;
  });
  return {
    get current(): TestDomain {
      if (!domain) throw new Error('the test domain is not open yet (use it inside a test or a later hook)');
      return domain;
    },
  };
}
