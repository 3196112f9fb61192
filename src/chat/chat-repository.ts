// The chat queries: rooms, membership and read positions, messages (edits, tombstones), reactions.
import { sql } from 'drizzle-orm';
import { Repository } from '../db/repository.js';
import { andNotAmong, jsonb, sqlList } from '../db/sql-fragments.js';
import type { KeysetPosition } from '../shared/cursor.js';
import type { AttachmentInput } from './schemas.js';

export interface RoomRow {
  id: string;
  name: string | null;
  direct_key: string | null;
  created_at: Date;
  last_message_at: Date | null;
}

/** A room as the caller's room list sees it: its place in the order and the caller's unread messages. */
export interface RoomListRow extends RoomRow {
  activity_at: Date;
  unread_count: number;
}

export interface MemberRow {
  room_id: string;
  user_id: string;
  username: string;
  given_name: string;
  family_name: string;
  picture: string | null;
}

export interface MessageRow {
  id: string;
  room_id: string;
  msg: string;
  attachments: AttachmentInput[];
  created_at: Date;
  edited_at: Date | null;
  deleted_at: Date | null;
  sender_id: string;
  username: string;
  given_name: string;
  family_name: string;
  picture: string | null;
}

/** A message looked up by id, with whether the asking user is a member of its room. */
export interface MessageAccessRow extends MessageRow {
  member: boolean;
}

export interface ReactionRow {
  message_id: string;
  emoji: string;
  count: number;
  user_ids: string[];
}

export interface ReadRow {
  last_read_message_id: string;
  read_at: Date;
}

type RoomAccess = 'missing' | 'not_member' | 'member';

/** Counting unread messages stops here: a room never costs more than this many index entries. */
export const UNREAD_COUNT_CAP = 100;

const MESSAGE_COLUMNS = sql`cm.id, cm.room_id, cm.msg, cm.attachments, cm.created_at, cm.edited_at, cm.deleted_at, cm.sender_id,
  u.username, u.given_name, u.family_name, u.picture`;

export class ChatRepository extends Repository {
  async findRoomByDirectKey(directKey: string): Promise<RoomRow | null> {
    const [row] = await this.db.rows<RoomRow>(sql`
      select id, name, direct_key, created_at, last_message_at from chat_rooms where direct_key = ${directKey}`);
    return row ?? null;
  }

  async insertRoom(room: { id: string; name: string | null; directKey: string | null; createdBy: string; at: Date; contentId: string | null }): Promise<void> {
    await this.db.rows(sql`
      insert into chat_rooms (id, name, direct_key, created_by, created_at, content_id)
      values (${room.id}, ${room.name}, ${room.directKey}, ${room.createdBy}, ${room.at.toISOString()}::timestamptz, ${room.contentId})`);
  }

  async insertMembers(roomId: string, userIds: string[], at: Date): Promise<void> {
    await this.db.rows(sql`
      insert into chat_room_members (room_id, user_id, joined_at)
      values ${sql.join(
        userIds.map((m) => sql`(${roomId}, ${m}, ${at.toISOString()}::timestamptz)`),
        sql`, `,
      )}`);
  }

  async findRoom(roomId: string): Promise<RoomRow | null> {
    const [row] = await this.db.rows<RoomRow>(sql`
      select id, name, direct_key, created_at, last_message_at from chat_rooms where id = ${roomId}`);
    return row ?? null;
  }

  /**
   * The caller's rooms, most recently active first (activity = the last message, else creation),
   * `limit + 1` rows after `after`. unread_count counts others' live messages after the caller's
   * read position, at most UNREAD_COUNT_CAP of them (a range scan of chat_messages_room_idx).
   */
  roomsPage(userId: string, after: KeysetPosition | null, limit: number, hiddenSenders: readonly string[] = []): Promise<RoomListRow[]> {
    const activity = sql`coalesce(r.last_message_at, r.created_at)`;
    const where = after ? sql`where (${activity}, r.id) < (${after.createdAt.toISOString()}::timestamptz, ${after.id}::uuid)` : sql``;
    return this.db.rows<RoomListRow>(sql`
      select r.id, r.name, r.direct_key, r.created_at, r.last_message_at, ${activity} as activity_at,
        (select count(*)::int from (
           select 1 from chat_messages cm
           where cm.room_id = r.id and cm.sender_id <> ${userId} and cm.deleted_at is null ${andNotAmong(sql`cm.sender_id`, hiddenSenders)}
             and (m.last_read_message_at is null
                  or (cm.created_at, cm.id) > (m.last_read_message_at, m.last_read_message_id))
           limit ${UNREAD_COUNT_CAP}) unread) as unread_count
      from chat_rooms r join chat_room_members m on m.room_id = r.id and m.user_id = ${userId}
      ${where}
      order by ${activity} desc, r.id desc
      limit ${limit + 1}`);
  }

  /** The newest message (or tombstone) of each room. */
  latestMessages(roomIds: string[], hiddenSenders: readonly string[] = []): Promise<MessageRow[]> {
    if (!roomIds.length) return Promise.resolve([]);
    return this.db.rows<MessageRow>(sql`
      select latest.* from unnest(array[${sqlList(roomIds)}]::uuid[]) as room(id)
      cross join lateral (
        select ${MESSAGE_COLUMNS}
        from chat_messages cm join users u on u.id = cm.sender_id
        where cm.room_id = room.id ${andNotAmong(sql`cm.sender_id`, hiddenSenders)}
        order by cm.created_at desc, cm.id desc
        limit 1) latest`);
  }

  membersOf(roomIds: string[]): Promise<MemberRow[]> {
    if (!roomIds.length) return Promise.resolve([]);
    return this.db.rows<MemberRow>(sql`
      select m.room_id, u.id as user_id, u.username, u.given_name, u.family_name, u.picture
      from chat_room_members m join users u on u.id = m.user_id
      where m.room_id in (${sqlList(roomIds)})
      order by m.joined_at, u.id`);
  }

  /**
   * Whether a member of the room blocks `userId` or is blocked by them (CONTRACT §21). Asked from
   * the user's blocks (few) into the room's membership (primary key), so its cost does not grow
   * with the room: loading a 1,000-member room for every message was most of a message's CPU.
   */
  async blockWithinRoom(roomId: string, userId: string): Promise<boolean> {
    const [row] = await this.db.rows<{ blocked: boolean }>(sql`
      select exists(
        select 1 from blocks b join chat_room_members m on m.room_id = ${roomId} and m.user_id = b.blocked_id where b.blocker_id = ${userId}
        union all
        select 1 from blocks b join chat_room_members m on m.room_id = ${roomId} and m.user_id = b.blocker_id where b.blocked_id = ${userId}) as blocked`);
    return row?.blocked === true;
  }

  async roomIdsOf(userId: string, limit: number): Promise<string[]> {
    const rows = await this.db.rows<{ room_id: string }>(sql`
      select room_id from chat_room_members where user_id = ${userId} limit ${limit}`);
    return rows.map((r) => r.room_id);
  }

  async access(roomId: string, userId: string): Promise<RoomAccess> {
    const [row] = await this.db.rows<{ member: boolean }>(sql`
      select exists(select 1 from chat_room_members m where m.room_id = r.id and m.user_id = ${userId}) as member
      from chat_rooms r where r.id = ${roomId}`);
    if (!row) return 'missing';
    return row.member ? 'member' : 'not_member';
  }

  /**
   * Stores a message, marks the room active and moves the sender's read position to it (what
   * one sends is read); returns the message with its sender.
   */
  async insertMessage(m: { id: string; roomId: string; senderId: string; msg: string; attachments: AttachmentInput[] }): Promise<MessageRow> {
    const at = new Date().toISOString();
    const [row] = await this.db.rows<MessageRow>(sql`
      with inserted as (
        insert into chat_messages (id, room_id, sender_id, msg, attachments, created_at)
        values (${m.id}, ${m.roomId}, ${m.senderId}, ${m.msg}, ${jsonb(m.attachments)}, ${at}::timestamptz)
        returning id, room_id, sender_id, msg, attachments, created_at, edited_at, deleted_at
      ), touched as (
        update chat_rooms set last_message_at = ${at}::timestamptz where id = ${m.roomId}
      ), read as (
        update chat_room_members set last_read_message_id = ${m.id}, last_read_message_at = ${at}::timestamptz, read_at = ${at}::timestamptz
        where room_id = ${m.roomId} and user_id = ${m.senderId}
      )
      select cm.id, cm.room_id, cm.msg, cm.attachments, cm.created_at, cm.edited_at, cm.deleted_at, cm.sender_id,
             u.username, u.given_name, u.family_name, u.picture
      from inserted cm join users u on u.id = cm.sender_id`);
    return row;
  }

  /** Messages of a room, newest first; `limit + 1` rows to know whether more follow. `hiddenSenders`' are left out. */
  messages(roomId: string, before: KeysetPosition | null, limit: number, hiddenSenders: readonly string[] = []): Promise<MessageRow[]> {
    const where = before
      ? sql`cm.room_id = ${roomId} and (cm.created_at, cm.id) < (${before.createdAt.toISOString()}::timestamptz, ${before.id}::uuid)`
      : sql`cm.room_id = ${roomId}`;
    return this.db.rows<MessageRow>(sql`
      select ${MESSAGE_COLUMNS}
      from chat_messages cm join users u on u.id = cm.sender_id
      where ${where} ${andNotAmong(sql`cm.sender_id`, hiddenSenders)}
      order by cm.created_at desc, cm.id desc
      limit ${limit + 1}`);
  }

  /** Messages of a room after a position, oldest first; `limit + 1` rows. */
  messagesAfter(roomId: string, after: KeysetPosition, limit: number, hiddenSenders: readonly string[] = []): Promise<MessageRow[]> {
    return this.db.rows<MessageRow>(sql`
      select ${MESSAGE_COLUMNS}
      from chat_messages cm join users u on u.id = cm.sender_id
      where cm.room_id = ${roomId} and (cm.created_at, cm.id) > (${after.createdAt.toISOString()}::timestamptz, ${after.id}::uuid)
        ${andNotAmong(sql`cm.sender_id`, hiddenSenders)}
      order by cm.created_at, cm.id
      limit ${limit + 1}`);
  }

  async findMessage(messageId: string, userId: string): Promise<MessageAccessRow | null> {
    const [row] = await this.db.rows<MessageAccessRow>(sql`
      select ${MESSAGE_COLUMNS},
        exists(select 1 from chat_room_members m where m.room_id = cm.room_id and m.user_id = ${userId}) as member
      from chat_messages cm join users u on u.id = cm.sender_id
      where cm.id = ${messageId}`);
    return row ?? null;
  }

  /** New text for a live message; null when it was deleted meanwhile. */
  async updateText(messageId: string, msg: string, at: Date): Promise<MessageRow | null> {
    const [row] = await this.db.rows<MessageRow>(sql`
      with updated as (
        update chat_messages set msg = ${msg}, edited_at = ${at.toISOString()}::timestamptz
        where id = ${messageId} and deleted_at is null
        returning id, room_id, sender_id, msg, attachments, created_at, edited_at, deleted_at
      )
      select cm.id, cm.room_id, cm.msg, cm.attachments, cm.created_at, cm.edited_at, cm.deleted_at, cm.sender_id,
             u.username, u.given_name, u.family_name, u.picture
      from updated cm join users u on u.id = cm.sender_id`);
    return row ?? null;
  }

  /** Turns a message into a tombstone (text, attachments and reactions go); false when it already was one. */
  async markDeleted(messageId: string, at: Date): Promise<boolean> {
    const rows = await this.db.rows<{ id: string }>(sql`
      with deleted as (
        update chat_messages set deleted_at = ${at.toISOString()}::timestamptz, msg = '', attachments = '[]'::jsonb
        where id = ${messageId} and deleted_at is null
        returning id
      ), reactions as (
        delete from chat_message_reactions where message_id in (select id from deleted)
      )
      select id from deleted`);
    return rows.length > 0;
  }

  /** True when the reaction is new. */
  async addReaction(messageId: string, userId: string, emoji: string): Promise<boolean> {
    const rows = await this.db.rows<{ emoji: string }>(sql`
      insert into chat_message_reactions (message_id, user_id, emoji, created_at)
      values (${messageId}, ${userId}, ${emoji}, ${new Date().toISOString()}::timestamptz)
      on conflict do nothing
      returning emoji`);
    return rows.length > 0;
  }

  /** True when there was such a reaction. */
  async removeReaction(messageId: string, userId: string, emoji: string): Promise<boolean> {
    const rows = await this.db.rows<{ emoji: string }>(sql`
      delete from chat_message_reactions where message_id = ${messageId} and user_id = ${userId} and emoji = ${emoji}
      returning emoji`);
    return rows.length > 0;
  }

  async distinctEmojis(messageId: string): Promise<string[]> {
    const rows = await this.db.rows<{ emoji: string }>(sql`
      select distinct emoji from chat_message_reactions where message_id = ${messageId}`);
    return rows.map((r) => r.emoji);
  }

  /** Reactions of each message, grouped by emoji, in the order each emoji was first chosen. */
  reactionsOf(messageIds: string[]): Promise<ReactionRow[]> {
    if (!messageIds.length) return Promise.resolve([]);
    return this.db.rows<ReactionRow>(sql`
      select message_id, emoji, count(*)::int as count,
             array_agg(user_id::text order by created_at, user_id) as user_ids
      from chat_message_reactions
      where message_id in (${sqlList(messageIds)})
      group by message_id, emoji
      order by message_id, min(created_at), emoji`);
  }

  /**
   * Moves a member's read position forward to a message of the room; returns the new position,
   * or null when the member had already read that far (a position never moves backwards).
   */
  async advanceRead(roomId: string, userId: string, message: { id: string; createdAt: Date }, at: Date): Promise<ReadRow | null> {
    const [row] = await this.db.rows<ReadRow>(sql`
      update chat_room_members
      set last_read_message_id = ${message.id}, last_read_message_at = ${message.createdAt.toISOString()}::timestamptz,
          read_at = ${at.toISOString()}::timestamptz
      where room_id = ${roomId} and user_id = ${userId}
        and (last_read_message_at is null
             or (last_read_message_at, last_read_message_id) < (${message.createdAt.toISOString()}::timestamptz, ${message.id}::uuid))
      returning last_read_message_id, read_at`);
    return row ?? null;
  }

  async readPosition(roomId: string, userId: string): Promise<ReadRow | null> {
    const [row] = await this.db.rows<ReadRow>(sql`
      select last_read_message_id, read_at from chat_room_members
      where room_id = ${roomId} and user_id = ${userId} and last_read_message_id is not null`);
    return row ?? null;
  }

  /**
   * Leaving (CONTRACT §22): the sender's messages become tombstones (text and attachments cleared,
   * as a deleted message: CONTRACT §18) and their reactions on messages go. Idempotent.
   */
  async eraseAllBy(senderId: string): Promise<void> {
    await this.db.rows(sql`
      update chat_messages set deleted_at = coalesce(deleted_at, now()), msg = '', attachments = '[]'::jsonb
      where sender_id = ${senderId} and (deleted_at is null or msg <> '' or attachments <> '[]'::jsonb)`);
    await this.db.rows(sql`delete from chat_message_reactions where user_id = ${senderId}`);
  }
}
