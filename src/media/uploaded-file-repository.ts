// The queries on uploaded_files: files of the general upload form, kept for their uploader.
import { sql } from 'drizzle-orm';
import { Repository } from '../db/repository.js';
import { jsonb } from '../db/sql-fragments.js';
import type { UploadKind } from './file-kinds.js';

export interface NewUploadedFile {
  id: string;
  userId: string;
  kind: UploadKind;
  /** Relative to MEDIA_DIR. */
  path: string;
  mimeType: string;
  size: number;
  originalName: string;
  metadata: { width: number | null; height: number | null; format: string };
  clientMetadata: Record<string, unknown>;
}

export class UploadedFileRepository extends Repository {
  /** Records a file whose processing is complete. */
  async insertCompleted(f: NewUploadedFile): Promise<void> {
    await this.db.rows(sql`
      insert into uploaded_files (id, user_id, kind, path, mime_type, size, original_name, metadata, client_metadata, processing_status)
      values (${f.id}, ${f.userId}, ${f.kind}, ${f.path}, ${f.mimeType}, ${f.size}, ${f.originalName},
        ${jsonb(f.metadata)}, ${jsonb(f.clientMetadata)}, 'completed')`);
  }

  /** Erasure (CONTRACT §22): the user's uploaded files' rows; answers their paths (relative to MEDIA_DIR) to remove. */
  async deleteAllOf(userId: string): Promise<string[]> {
    const rows = await this.db.rows<{ path: string }>(sql`delete from uploaded_files where user_id = ${userId} returning path`);
    return rows.map((r) => r.path);
  }

  /** The user's uploaded files' paths (relative to MEDIA_DIR). */
  async pathsOf(userId: string): Promise<string[]> {
    const rows = await this.db.rows<{ path: string }>(sql`select path from uploaded_files where user_id = ${userId}`);
    return rows.map((r) => r.path);
  }
}
