// The chat queries: rooms, membership, messages.
import { sql } from 'drizzle-orm';
import type { Queryable } from '../db/client.js';
import { jsonb, sqlList } from '../db/sql-fragments.js';
import type { KeysetPosition } from '../comments/cursor.js';
import type { AttachmentInput } from './schemas.js';

export interface RoomRow {
  id: string;
  name: string | null;
  direct_key: string | null;
  created_at: Date;
  last_message_at: Date | null;
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
  sender_id: string;
  username: string;
  given_name: string;
  family_name: string;
  picture: string | null;
}

type RoomAccess = 'missing' | 'not_member' | 'member';

export class ChatRepository {
  constructor(private readonly db: Queryable) {}

  async findRoomByDirectKey(directKey: string): Promise<RoomRow | null> {
    const [row] = await this.db.rows<RoomRow>(sql`
      select id, name, direct_key, created_at, last_message_at from chat_rooms where direct_key = ${directKey}`);
    return row ?? null;
  }

  async insertRoom(room: { id: string; name: string | null; directKey: string | null; createdBy: string; at: Date }): Promise<void> {
    await this.db.rows(sql`
      insert into chat_rooms (id, name, direct_key, created_by, created_at)
      values (${room.id}, ${room.name}, ${room.directKey}, ${room.createdBy}, ${room.at.toISOString()}::timestamptz)`);
  }

  async insertMembers(roomId: string, userIds: string[], at: Date): Promise<void> {
    await this.db.rows(sql`
      insert into chat_room_members (room_id, user_id, joined_at)
      values ${sql.join(userIds.map((m) => sql`(${roomId}, ${m}, ${at.toISOString()}::timestamptz)`), sql`, `)}`);
  }

  async findRoom(roomId: string): Promise<RoomRow | null> {
    const [row] = await this.db.rows<RoomRow>(sql`
      select id, name, direct_key, created_at, last_message_at from chat_rooms where id = ${roomId}`);
    return row ?? null;
  }

  /** The caller's rooms, most recently active first. */
  roomsOf(userId: string, limit: number): Promise<RoomRow[]> {
    return this.db.rows<RoomRow>(sql`
      select r.id, r.name, r.direct_key, r.created_at, r.last_message_at
      from chat_rooms r join chat_room_members m on m.room_id = r.id and m.user_id = ${userId}
      order by coalesce(r.last_message_at, r.created_at) desc, r.id desc
      limit ${limit}`);
  }

  membersOf(roomIds: string[]): Promise<MemberRow[]> {
    if (!roomIds.length) return Promise.resolve([]);
    return this.db.rows<MemberRow>(sql`
      select m.room_id, u.id as user_id, u.username, u.given_name, u.family_name, u.picture
      from chat_room_members m join users u on u.id = m.user_id
      where m.room_id in (${sqlList(roomIds)})
      order by m.joined_at, u.id`);
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

  /** Stores a message and marks the room active; returns the message with its sender. */
  async insertMessage(m: { id: string; roomId: string; senderId: string; msg: string; attachments: AttachmentInput[] }): Promise<MessageRow> {
    const at = new Date().toISOString();
    const [row] = await this.db.rows<MessageRow>(sql`
      with inserted as (
        insert into chat_messages (id, room_id, sender_id, msg, attachments, created_at)
        values (${m.id}, ${m.roomId}, ${m.senderId}, ${m.msg}, ${jsonb(m.attachments)}, ${at}::timestamptz)
        returning id, room_id, sender_id, msg, attachments, created_at
      ), touched as (
        update chat_rooms set last_message_at = ${at}::timestamptz where id = ${m.roomId}
      )
      select i.id, i.room_id, i.msg, i.attachments, i.created_at, i.sender_id,
             u.username, u.given_name, u.family_name, u.picture
      from inserted i join users u on u.id = i.sender_id`);
    return row;
  }

  /** Messages of a room, newest first; `limit + 1` rows to know whether more follow. */
  messages(roomId: string, before: KeysetPosition | null, limit: number): Promise<MessageRow[]> {
    const where = before
      ? sql`cm.room_id = ${roomId} and (cm.created_at, cm.id) < (${before.createdAt.toISOString()}::timestamptz, ${before.id}::uuid)`
      : sql`cm.room_id = ${roomId}`;
    return this.db.rows<MessageRow>(sql`
      select cm.id, cm.room_id, cm.msg, cm.attachments, cm.created_at, cm.sender_id,
             u.username, u.given_name, u.family_name, u.picture
      from chat_messages cm join users u on u.id = cm.sender_id
      where ${where}
      order by cm.created_at desc, cm.id desc
      limit ${limit + 1}`);
  }
}
