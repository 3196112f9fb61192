// Publishing an item the way the video worker finishes one: the `completed` state written to the
// database (the worker's data contract, see markCompleted), then `video.completed` with the stored
// video on the event bus of the node that processed it. The fixture waits until the bus's awaited
// listeners (those that tell the other nodes) are done, so the item counts as published when
// it returns, as an edit does when its request answers.
import { sql } from 'drizzle-orm';
import type { TestServer } from '../helpers/server.js';
import type { TestUser } from '../helpers/api.js';
import { createContent, fullBody, markCompleted } from '../content/fixtures.js';
import type { StoredVideo } from '../../src/content/content-repository.js';
import { videoSummary } from '../../src/content/video-summary.js';

/** Marks `contentId` processed and announces it on `server`'s bus. */
export async function finishProcessing(server: TestServer, contentId: string, uploader: TestUser): Promise<void> {
  await markCompleted(server, contentId);
  const [row] = await server.service.app.database.rows<{ video: StoredVideo }>(sql`select video from contents where id = ${contentId}`);
  await server.service.app.events.publishAndWait('video.completed', {
    uploaderId: uploader.userId,
    contentId,
    video: videoSummary(server.service.config, row.video),
  });
}

/** Creates an item through the API and publishes it; returns its id. */
export async function publishItem(server: TestServer, uploader: TestUser, body: Record<string, unknown> = fullBody()): Promise<string> {
  const id = await createContent(uploader, body);
  await finishProcessing(server, id, uploader);
  return id;
}
