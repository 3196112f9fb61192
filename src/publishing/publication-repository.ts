// The social_publications table: the record of each attempt to publish a content item to a platform.
import { sql } from 'drizzle-orm';
import { Repository } from '../db/repository.js';
import { newId } from '../shared/ids.js';
import type { Platform } from './platforms.js';

export class PublicationRepository extends Repository {
  async start(userId: string, contentId: string, platform: Platform): Promise<string> {
    const id = newId();
    await this.db.rows(sql`
      insert into social_publications (id, user_id, content_id, platform, status)
      values (${id}, ${userId}, ${contentId}, ${platform}, 'uploading')`);
    return id;
  }

  async setRemoteId(id: string, remoteId: string): Promise<void> {
    await this.db.rows(sql`update social_publications set remote_id = ${remoteId}, updated_at = now() where id = ${id}`);
  }

  async finish(id: string, remoteId: string, status: string): Promise<void> {
    await this.db.rows(sql`update social_publications set remote_id = ${remoteId}, status = ${status}, error = null, updated_at = now() where id = ${id}`);
  }

  async fail(id: string, error: string): Promise<void> {
    await this.db.rows(sql`update social_publications set status = 'failed', error = ${error.slice(0, 500)}, updated_at = now() where id = ${id}`);
  }

  /** Erasure (CONTRACT §22): the user's publications to other platforms. */
  async deleteAllOf(userId: string): Promise<void> {
    await this.db.rows(sql`delete from social_publications where user_id = ${userId}`);
  }
}
