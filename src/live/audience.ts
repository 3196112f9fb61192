// Who a live event reaches, as the domain decides it (CONTRACT §17, §21): the realtime door asks
// here before it pushes, then only maps the answer onto its rooms. The rules:
// - what a user does (a message, an edit, a deletion, a reaction, a read position, a comment, a
//   published item (in the feed or in a watched viewport), a follow, a reply) reaches nobody on either side of a block with them:
//   "no live event of one reaches the other". The blocked user thus hears nothing live of the
//   blocker either, though their listings still show the blocker's things;
// - presence and typing likewise, and never the user's own sockets;
// - `follow:new` and `comment:reply` obey the same settings toggle as their notification type
//   (`follow`, `reply`): a type turned off is not pushed in any form; nobody is told about their
//   own reply.
import type { BlockService } from '../blocks/index.js';
import type { NotificationService } from '../notifications/index.js';
import type { DomainEvents } from '../events.js';
import type { PublishedItem } from '../content/index.js';

/** A push goes ahead, except to the sockets of `withheld` users. */
export interface Audience {
  withheld: string[];
}

/** Everyone may have it. */
export const EVERYONE: Audience = { withheld: [] };

export class LiveAudience {
  constructor(
    private readonly blocks: BlockService,
    private readonly notifications: NotificationService,
  ) {}

  /** What `actorId` does: to nobody they blocked or who blocked them. */
  async ofActor(actorId: string): Promise<Audience> {
    return { withheld: await this.blocks.eitherWayOf(actorId) };
  }

  /** Presence, typing and read positions of `userId`: not to their own sockets, nor to either side of a block. */
  async apartFrom(userId: string): Promise<Audience> {
    return { withheld: [userId, ...(await this.blocks.eitherWayOf(userId))] };
  }

  /**
   * `listing:new`: an item with no place on the map is in no viewport, so nobody; else as what its
   * uploader does (not to either side of a block with them, CONTRACT §21).
   */
  async newListing(published: PublishedItem): Promise<Audience | null> {
    if (published.latitude === null || published.longitude === null) return null;
    return this.ofActor(published.uploaderId);
  }

  /** `follow:new` goes to the followed user when they want follow notifications; null: nobody. */
  async followNotice(follow: DomainEvents['follow.created']): Promise<Audience | null> {
    if (!(await this.notifications.wants(follow.following_id, 'follow'))) return null;
    return this.ofActor(follow.follower_id);
  }

  /** `comment:reply` goes to the author of the comment answered, unless it is their own reply or they turned replies off. */
  async replyNotice({ comment, parentAuthorId }: DomainEvents['comment.created']): Promise<Audience | null> {
    if (!parentAuthorId || parentAuthorId === comment.author.userId) return null;
    if (!(await this.notifications.wants(parentAuthorId, 'reply'))) return null;
    return this.ofActor(comment.author.userId);
  }
}
