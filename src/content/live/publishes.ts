// A processed video makes its item live (CONTRACT §15): once its video completes, the item is read
// as published, in every language, and announced as `content.published`, from which the realtime
// door pushes `feed:new` to the uploader's followers and `listing:new` to the viewports around it.
// An item that is gone or not published by then is announced to nobody.
import type { AppContext } from '../../context.js';
import type { ContentLiveFeed } from './feed.js';

export class LivePublishes {
  constructor(
    private readonly app: AppContext,
    private readonly liveFeed: ContentLiveFeed,
  ) {}

  /** Starts announcing; the returned function stops. */
  start(): () => void {
    return this.app.events.handle('video.completed', 'live-publishes', async ({ contentId }) => {
      const published = await this.liveFeed.publishedItem(contentId);
      if (published) this.app.events.publish('content.published', published);
    });
  }
}
