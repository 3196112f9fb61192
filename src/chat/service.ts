// Chat rules: rooms and their members, who may read and post, message validation. REST and the
// /chat socket namespace both call sendMessage, which stores the message once and publishes
// `chat.message` (realtime pushes it to the room on every node from there).
import type { AppContext } from '../context.js';
import { requirePermission, type Caller } from '../auth/caller.js';
import { badRequest, forbidden, notFound, isUniqueViolation } from '../shared/errors.js';
import { isUuid, newId } from '../shared/ids.js';
import { decodeCursor, pageOf, type PageQuery } from '../comments/cursor.js';
import { avatarUrl, displayName } from '../comments/person.js';
import { UserRepository } from '../auth/user-repository.js';
import { ChatRepository, type MemberRow, type MessageRow, type RoomRow } from './chat-repository.js';
import type { CreateRoomInput, SendMessageInput } from './schemas.js';
import type { ChatPerson, MessageView } from './message-view.js';

/** Rooms listed by GET /chat/rooms (the most recently active ones). */
const MAX_ROOMS_LISTED = 100;
/** Rooms a /chat socket joins automatically on connect. */
const MAX_ROOMS_AUTO_JOINED = 500;

interface RoomView {
  roomId: string;
  name: string | null;
  members: ChatPerson[];
  /** True for the reusable two-person room (created without a name). */
  direct: boolean;
  createdAt: string;
  lastMessageAt: string | null;
}

const roomNotFound = () => notFound('chat.error.room_not_found', 'Chat room not found', { field: 'roomId', constraint: 'must name an existing chat room' });
const notMember = () => forbidden('chat.error.not_member', 'You are not a member of this chat room');

export class ChatService {
  private readonly repository: ChatRepository;
  private readonly users: UserRepository;

  constructor(private readonly app: AppContext) {
    this.repository = new ChatRepository(app.database);
    this.users = new UserRepository(app.database);
  }

  /**
   * Creates a room with the caller and `memberIds`. A room with exactly one other person and no
   * name is a direct room: asking again returns the existing one (`created: false`).
   */
  async createRoom(caller: Caller, input: CreateRoomInput): Promise<{ room: RoomView; created: boolean }> {
    requirePermission(caller, 'create:chat');
    const others = [...new Set(input.memberIds)].filter((id) => id !== caller.userId);
    const unknown = others.find((id) => !isUuid(id));
    const existing = await this.users.existingIds(others.filter(isUuid));
    const missing = unknown ?? others.find((id) => !existing.has(id));
    if (missing !== undefined) {
      throw notFound('chat.error.user_not_found', `User ${missing} not found`, { field: 'memberIds', constraint: 'every member must be an existing user' });
    }

    const directKey = others.length === 1 && input.name === undefined ? [caller.userId, others[0]].sort().join(':') : null;
    if (directKey) {
      const room = await this.repository.findRoomByDirectKey(directKey);
      if (room) return { room: await this.roomView(room), created: false };
    }
    const id = newId();
    try {
      // The room and its members exist together or not at all.
      await this.app.database.transaction(async (tx) => {
        const rooms = new ChatRepository(tx);
        const at = new Date();
        await rooms.insertRoom({ id, name: input.name ?? null, directKey, createdBy: caller.userId, at });
        await rooms.insertMembers(id, [caller.userId, ...others], at);
      });
    } catch (err) {
      // Two first messages at once: the other request made the direct room; use it.
      if (directKey && isUniqueViolation(err)) {
        const room = await this.repository.findRoomByDirectKey(directKey);
        if (room) return { room: await this.roomView(room), created: false };
      }
      throw err;
    }
    const room = await this.repository.findRoom(id);
    return { room: await this.roomView(room!), created: true };
  }

  async listRooms(caller: Caller): Promise<RoomView[]> {
    const rooms = await this.repository.roomsOf(caller.userId, MAX_ROOMS_LISTED);
    const members = await this.repository.membersOf(rooms.map((r) => r.id));
    return rooms.map((r) => this.toRoomView(r, members));
  }

  async listMessages(caller: Caller, roomId: string, query: PageQuery): Promise<{ messages: MessageView[]; hasMore: boolean; nextCursor: string | null }> {
    const before = decodeCursor(query.cursor);
    await this.assertMember(caller, roomId);
    const { page, hasMore, nextCursor } = pageOf(await this.repository.messages(roomId, before, query.limit), query.limit);
    return { messages: page.map((m) => this.toMessageView(m)), hasMore, nextCursor };
  }

  async sendMessage(caller: Caller, input: SendMessageInput): Promise<MessageView> {
    requirePermission(caller, 'create:chat');
    const msg = input.msg ?? '';
    const attachments = input.attachments ?? [];
    if (!msg && !attachments.length) {
      throw badRequest('chat.error.empty_message', 'A message needs text or at least one attachment', { field: 'msg', constraint: 'msg or attachments required' });
    }
    await this.assertMember(caller, input.roomId);
    const row = await this.repository.insertMessage({ id: newId(), roomId: input.roomId, senderId: caller.userId, msg, attachments });
    const message = this.toMessageView(row);
    this.app.events.publish('chat.message', { roomId: input.roomId, message });
    return message;
  }

  /** 404 for an unknown room, 403 for a room the caller is not in. */
  async assertMember(caller: Caller, roomId: string): Promise<void> {
    const access = isUuid(roomId) ? await this.repository.access(roomId, caller.userId) : 'missing';
    if (access === 'missing') throw roomNotFound();
    if (access === 'not_member') throw notMember();
  }

  /** Rooms a freshly connected /chat socket is put in. */
  roomIdsOf(userId: string): Promise<string[]> {
    return this.repository.roomIdsOf(userId, MAX_ROOMS_AUTO_JOINED);
  }

  private async roomView(room: RoomRow): Promise<RoomView> {
    return this.toRoomView(room, await this.repository.membersOf([room.id]));
  }

  private person(p: { user_id?: string; sender_id?: string; username: string; given_name: string; family_name: string; picture: string | null }): ChatPerson {
    return { userId: (p.user_id ?? p.sender_id)!, name: displayName(p), picture: avatarUrl(this.app.config, p.picture) };
  }

  private toRoomView(room: RoomRow, members: MemberRow[]): RoomView {
    return {
      roomId: room.id,
      name: room.name,
      members: members.filter((m) => m.room_id === room.id).map((m) => this.person(m)),
      direct: room.direct_key !== null,
      createdAt: room.created_at.toISOString(),
      lastMessageAt: room.last_message_at?.toISOString() ?? null,
    };
  }

  private toMessageView(row: MessageRow): MessageView {
    return {
      _id: row.id,
      roomId: row.room_id,
      msg: row.msg,
      sender: this.person(row),
      attachments: row.attachments.map((a) => ({ type: a.type, fileName: a.fileName, url: a.url, downloadable: true })),
      reactions: [],
      createdAt: row.created_at.toISOString(),
    };
  }
}
