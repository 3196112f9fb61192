// Chat rules: rooms and their members, who may read and post, message validation; and beyond
// sending (CONTRACT §18): edits within 15 minutes, tombstones, reactions, read positions, the
// room list with unread counts. REST and the /chat socket namespace call the same methods; every
// change is stored first, then published as a domain event that realtime pushes to the room on
// every node.
import type { AppContext } from '../context.js';
import { requirePermission, type Caller } from '../auth/index.js';
import { AppError, badRequest, conflict, forbidden, notFound, isUniqueViolation } from '../shared/errors.js';
import { isUuid, newId } from '../shared/ids.js';
import { decodeCursor, pageOf } from '../shared/cursor.js';
import type { UserRepository } from '../auth/index.js';
import type { BlockService } from '../blocks/index.js';
import type { ChatRepository, MessageAccessRow, MessageRow, RoomRow } from './chat-repository.js';
import type { CreateRoomInput, MessagesQuery, RoomsQuery, SendMessageInput } from './schemas.js';
import type { HistoryItem, MessageView, ReactionSummary } from './message-view.js';
import type { MessageReactionView, ReadView } from './event-views.js';
import { reactionsByMessage, toHistoryItem, toMessageView, toRoomView, type RoomListItem, type RoomView } from './views.js';

/** Rooms a /chat socket joins automatically on connect. */
const MAX_ROOMS_AUTO_JOINED = 500;
/** A message can be edited by its sender this long after it was sent (CONTRACT §18). */
export const EDIT_WINDOW_MS = 15 * 60 * 1000;
/** Different emojis one message can carry; a further new one is refused (each bounded by the room's members). */
const MAX_EMOJIS_PER_MESSAGE = 20;

/** What a room opened on an item asks of the views domain (src/views/service.ts). */
export interface RoomLeads {
  checkLeadItem(caller: Caller, contentId: string, memberIds: string[]): Promise<{ ownerId: string }>;
  openLead(viewerId: string, ownerId: string, contentId: string, roomId: string): Promise<void>;
  messageSent(roomId: string): Promise<void>;
}

interface Page<T> {
  hasMore: boolean;
  nextCursor: string | null;
  items: T[];
}

const roomNotFound = () => notFound('chat.error.room_not_found', 'Chat room not found', { field: 'roomId', constraint: 'must name an existing chat room' });
const notMember = () => forbidden('chat.error.not_member', 'You are not a member of this chat room');
const messageNotFound = (field = 'id') =>
  notFound('chat.error.message_not_found', 'Chat message not found', { field, constraint: 'must name an existing message' });
const blockedRefusal = () => forbidden('chat.error.blocked', 'You cannot message this user');
const emptyMessage = () =>
  badRequest('chat.error.empty_message', 'A message needs text or at least one attachment', { field: 'msg', constraint: 'msg or attachments required' });

export class ChatService {
  constructor(
    private readonly app: AppContext,
    private readonly repository: ChatRepository,
    private readonly users: UserRepository,
    private readonly blocks: BlockService,
    /** Rooms opened on an item (CONTRACT §26): the views domain checks the item and counts leads. */
    private readonly leads: RoomLeads,
  ) {}

  /**
   * Creates a room with the caller and `memberIds`. A room with exactly one other person and no
   * name is a direct room: asking again returns the existing one (`created: false`).
   */
  async createRoom(caller: Caller, input: CreateRoomInput): Promise<{ room: RoomView; created: boolean }> {
    const answer = await this.openRoom(caller, input);
    if (input.contentId === undefined) return answer;
    await this.leads.openLead(caller.userId, answer.lead!.ownerId, input.contentId, answer.room.roomId);
    return { room: { ...answer.room, contentId: input.contentId }, created: answer.created };
  }

  private async openRoom(caller: Caller, input: CreateRoomInput): Promise<{ room: RoomView; created: boolean; lead?: { ownerId: string } }> {
    requirePermission(caller, 'create:chat');
    const others = [...new Set(input.memberIds)].filter((id) => id !== caller.userId);
    const unknown = others.find((id) => !isUuid(id));
    const existing = await this.users.existingIds(others.filter(isUuid));
    const missing = unknown ?? others.find((id) => !existing.has(id));
    if (missing !== undefined) {
      throw notFound('chat.error.user_not_found', `User ${missing} not found`, { field: 'memberIds', constraint: 'every member must be an existing user' });
    }
    // CONTRACT §21: no room with someone blocked either way.
    if ((await this.blocks.amongEitherWay(caller.userId, others)).size) throw blockedRefusal();
    const lead = input.contentId === undefined ? undefined : await this.leads.checkLeadItem(caller, input.contentId, others);

    const directKey = others.length === 1 && input.name === undefined ? [caller.userId, others[0]].sort().join(':') : null;
    if (directKey) {
      const room = await this.repository.findRoomByDirectKey(directKey);
      if (room) return { room: await this.roomView(room), created: false, lead };
    }
    const id = newId();
    try {
      // The room and its members exist together or not at all.
      await this.app.database.transaction(async (tx) => {
        const rooms = this.repository.in(tx);
        const at = new Date();
        await rooms.insertRoom({ id, name: input.name ?? null, directKey, createdBy: caller.userId, at, contentId: input.contentId ?? null });
        await rooms.insertMembers(id, [caller.userId, ...others], at);
      });
    } catch (err) {
      // Two first messages at once: the other request made the direct room; use it.
      if (directKey && isUniqueViolation(err)) {
        const room = await this.repository.findRoomByDirectKey(directKey);
        if (room) return { room: await this.roomView(room), created: false, lead };
      }
      throw err;
    }
    const room = await this.repository.findRoom(id);
    return { room: await this.roomView(room!), created: true, lead };
  }

  /** The caller's rooms, most recently active first, each with its unread count and newest message. */
  async listRooms(caller: Caller, query: RoomsQuery): Promise<{ rooms: RoomListItem[]; hasMore: boolean; nextCursor: string | null }> {
    const after = decodeCursor(query.cursor);
    const hidden = [...(await this.blocks.hiddenFrom(caller.userId))];
    const rows = await this.repository.roomsPage(caller.userId, after, query.limit, hidden);
    const { page, hasMore, nextCursor } = pageOf(
      rows.map((row) => ({ row, id: row.id, created_at: row.activity_at })),
      query.limit,
    );
    const roomIds = page.map((p) => p.id);
    const [members, latest] = await Promise.all([this.repository.membersOf(roomIds), this.repository.latestMessages(roomIds, hidden)]);
    const latestByRoom = new Map((await this.withReactions(latest)).map((m) => [m.roomId, m]));
    const rooms = page.map(({ row }) => ({
      ...toRoomView(this.app.config, row, members),
      unread_count: row.unread_count,
      last_message: latestByRoom.get(row.id) ?? null,
    }));
    return { rooms, hasMore, nextCursor };
  }

  /** A room's history: newest first (cursor paging), or what came after a message, oldest first. */
  async listMessages(caller: Caller, roomId: string, query: MessagesQuery): Promise<{ messages: HistoryItem[]; hasMore: boolean; nextCursor: string | null }> {
    if (query.after !== undefined && query.cursor) {
      throw badRequest('chat.error.after_with_cursor', 'Use either after or cursor, not both', { field: 'after', constraint: 'not together with cursor' });
    }
    const before = decodeCursor(query.cursor);
    await this.assertMember(caller, roomId);
    const hidden = [...(await this.blocks.hiddenFrom(caller.userId))];
    let page: Page<MessageRow>;
    if (query.after !== undefined) {
      const from = await this.messageInRoom(caller, roomId, query.after, 'after');
      const rows = await this.repository.messagesAfter(roomId, { createdAt: from.created_at, id: from.id }, query.limit, hidden);
      // Paging on: ask again with after = the last _id of this page.
      page = { items: rows.slice(0, query.limit), hasMore: rows.length > query.limit, nextCursor: null };
    } else {
      const paged = pageOf(await this.repository.messages(roomId, before, query.limit, hidden), query.limit);
      page = { items: paged.page, hasMore: paged.hasMore, nextCursor: paged.nextCursor };
    }
    return { messages: await this.withReactions(page.items), hasMore: page.hasMore, nextCursor: page.nextCursor };
  }

  async sendMessage(caller: Caller, input: SendMessageInput): Promise<MessageView> {
    requirePermission(caller, 'create:chat');
    const msg = input.msg ?? '';
    const attachments = input.attachments ?? [];
    if (!msg && !attachments.length) throw emptyMessage();
    await this.assertMember(caller, input.roomId);
    // CONTRACT §21: nothing is sent to a room shared with someone blocked either way.
    if (await this.repository.blockWithinRoom(input.roomId, caller.userId)) throw blockedRefusal();
    const row = await this.repository.insertMessage({ id: newId(), roomId: input.roomId, senderId: caller.userId, msg, attachments });
    const message = toMessageView(this.app.config, row);
    this.app.events.publish('chat.message', { roomId: input.roomId, message });
    await this.leads.messageSent(input.roomId);
    return message;
  }

  /** New text for the caller's own message, within EDIT_WINDOW_MS of sending it. */
  async editMessage(caller: Caller, messageId: string, msg: string): Promise<MessageView> {
    const row = await this.ownLiveMessage(caller, messageId);
    if (Date.now() - row.created_at.getTime() > EDIT_WINDOW_MS) {
      throw forbidden('chat.error.edit_window_closed', 'A message can be edited only within 15 minutes of sending it');
    }
    if (!msg && !row.attachments.length) throw emptyMessage();
    const updated = await this.repository.updateText(messageId, msg, new Date());
    if (!updated) throw messageNotFound();
    const [message] = (await this.withReactions([updated])) as MessageView[];
    this.app.events.publish('chat.message.edited', { roomId: updated.room_id, message });
    return message;
  }

  /** Deletes the caller's own message: it stays in the history as a tombstone. */
  async deleteMessage(caller: Caller, messageId: string): Promise<{ roomId: string; _id: string }> {
    const row = await this.ownLiveMessage(caller, messageId);
    if (!(await this.repository.markDeleted(messageId, new Date()))) throw messageNotFound();
    const deleted = { roomId: row.room_id, _id: row.id };
    this.app.events.publish('chat.message.deleted', { ...deleted, senderId: row.sender_id });
    return deleted;
  }

  /** Adds the caller's `emoji` to a message of one of their rooms (once per user per emoji). */
  async addReaction(caller: Caller, messageId: string, emoji: string): Promise<MessageReactionView> {
    const row = await this.liveMessageOfMember(caller, messageId);
    await this.blocks.assertMayReact(caller.userId, [row.sender_id]);
    const emojis = await this.repository.distinctEmojis(messageId);
    if (!emojis.includes(emoji) && emojis.length >= MAX_EMOJIS_PER_MESSAGE) {
      throw conflict('chat.error.too_many_reactions', `A message carries at most ${MAX_EMOJIS_PER_MESSAGE} different emojis`, {
        field: 'emoji',
        constraint: `at most ${MAX_EMOJIS_PER_MESSAGE} different emojis per message`,
      });
    }
    const added = await this.repository.addReaction(messageId, caller.userId, emoji);
    return this.reactionsChanged(caller, row, added);
  }

  async removeReaction(caller: Caller, messageId: string, emoji: string): Promise<MessageReactionView> {
    const row = await this.liveMessageOfMember(caller, messageId);
    const removed = await this.repository.removeReaction(messageId, caller.userId, emoji);
    return this.reactionsChanged(caller, row, removed);
  }

  /**
   * Stores that the caller has read `messageId` (a message of the room) and everything before it.
   * The position never moves backwards: reading an older message answers the current position
   * and tells nobody.
   */
  async markRead(caller: Caller, roomId: string, messageId: string): Promise<ReadView> {
    await this.assertMember(caller, roomId);
    const message = await this.messageInRoom(caller, roomId, messageId, 'messageId');
    const moved = await this.repository.advanceRead(roomId, caller.userId, { id: message.id, createdAt: message.created_at }, new Date());
    const position = moved ?? (await this.repository.readPosition(roomId, caller.userId));
    if (!position) throw new AppError(500, 'chat.error.read_state', 'Read position could not be stored');
    const read: ReadView = { roomId, userId: caller.userId, messageId: position.last_read_message_id, read_at: position.read_at.toISOString() };
    if (moved) this.app.events.publish('chat.read', read);
    return read;
  }

  /** 404 for an unknown room, 403 for a room the caller is not in. */
  async assertMember(caller: Caller, roomId: string): Promise<void> {
    const access = isUuid(roomId) ? await this.repository.access(roomId, caller.userId) : 'missing';
    if (access === 'missing') throw roomNotFound();
    if (access === 'not_member') throw notMember();
  }

  /** Rooms a freshly connected /chat socket is put in, and whose members see the user's presence. */
  roomIdsOf(userId: string): Promise<string[]> {
    return this.repository.roomIdsOf(userId, MAX_ROOMS_AUTO_JOINED);
  }

  private async roomView(room: RoomRow): Promise<RoomView> {
    return toRoomView(this.app.config, room, await this.repository.membersOf([room.id]));
  }

  /** Rows as history items with their reactions (tombstones carry none). */
  private async withReactions(rows: MessageRow[]): Promise<HistoryItem[]> {
    const live = rows.filter((r) => !r.deleted_at).map((r) => r.id);
    const reactions = reactionsByMessage(await this.repository.reactionsOf(live));
    return rows.map((r) => toHistoryItem(this.app.config, r, reactions.get(r.id) ?? []));
  }

  /** A message of a room the caller is in: unknown (or another room's) → 404; non-member → 403. */
  private async messageInRoom(caller: Caller, roomId: string, messageId: string, field: string): Promise<MessageAccessRow> {
    const row = isUuid(messageId) ? await this.repository.findMessage(messageId, caller.userId) : null;
    if (!row || row.room_id !== roomId) throw messageNotFound(field);
    return row;
  }

  /** A message that is not deleted, in a room the caller is in. */
  private async liveMessageOfMember(caller: Caller, messageId: string): Promise<MessageAccessRow> {
    const row = isUuid(messageId) ? await this.repository.findMessage(messageId, caller.userId) : null;
    if (!row || row.deleted_at) throw messageNotFound();
    if (!row.member) throw notMember();
    return row;
  }

  /** The caller's own live message: a member's message that is someone else's → 403 not_sender. */
  private async ownLiveMessage(caller: Caller, messageId: string): Promise<MessageAccessRow> {
    const row = await this.liveMessageOfMember(caller, messageId);
    if (row.sender_id !== caller.userId) throw forbidden('chat.error.not_sender', 'Only the sender can change this message');
    return row;
  }

  private async reactionsChanged(caller: Caller, row: MessageRow, changed: boolean): Promise<MessageReactionView> {
    const reactions: ReactionSummary[] = reactionsByMessage(await this.repository.reactionsOf([row.id])).get(row.id) ?? [];
    const view = { roomId: row.room_id, _id: row.id, reactions };
    if (changed) this.app.events.publish('chat.reactions.changed', { ...view, actorId: caller.userId });
    return view;
  }
}
