// Rows of the chat tables turned into what clients see: people, messages (or tombstones), rooms.
import type { Config } from '../config.js';
import { avatarUrl, displayName } from '../shared/person.js';
import type { MemberRow, MessageRow, ReactionRow, RoomRow } from './chat-repository.js';
import type { ChatPerson, HistoryItem, MessageView, ReactionSummary } from './message-view.js';

export interface RoomView {
  roomId: string;
  name: string | null;
  members: ChatPerson[];
  /** True for the reusable two-person room (created without a name). */
  direct: boolean;
  createdAt: string;
  lastMessageAt: string | null;
  /** The item the room was opened on (CONTRACT §26), when asked with one. */
  contentId?: string;
}

/** A room in the caller's list: the room, the caller's unread count and the newest message. */
export interface RoomListItem extends RoomView {
  unread_count: number;
  last_message: HistoryItem | null;
}

export function person(
  config: Config,
  p: { user_id?: string; sender_id?: string; username: string; given_name: string; family_name: string; picture: string | null },
): ChatPerson {
  return { userId: (p.user_id ?? p.sender_id)!, name: displayName(p), picture: avatarUrl(config, p.picture) };
}

export function toRoomView(config: Config, room: RoomRow, members: MemberRow[]): RoomView {
  return {
    roomId: room.id,
    name: room.name,
    members: members.filter((m) => m.room_id === room.id).map((m) => person(config, m)),
    direct: room.direct_key !== null,
    createdAt: room.created_at.toISOString(),
    lastMessageAt: room.last_message_at?.toISOString() ?? null,
  };
}

export function toMessageView(config: Config, row: MessageRow, reactions: ReactionSummary[] = []): MessageView {
  return {
    _id: row.id,
    roomId: row.room_id,
    msg: row.msg,
    sender: person(config, row),
    attachments: row.attachments.map((a) => ({ type: a.type, fileName: a.fileName, url: a.url, downloadable: true })),
    reactions,
    createdAt: row.created_at.toISOString(),
    editedAt: row.edited_at?.toISOString() ?? null,
  };
}

/** A message of the history: the message, or its tombstone when deleted (CONTRACT §18). */
export function toHistoryItem(config: Config, row: MessageRow, reactions: ReactionSummary[] = []): HistoryItem {
  if (row.deleted_at) return { _id: row.id, roomId: row.room_id, deleted: true, createdAt: row.created_at.toISOString() };
  return toMessageView(config, row, reactions);
}

/** Reaction rows of many messages, by message id. */
export function reactionsByMessage(rows: ReactionRow[]): Map<string, ReactionSummary[]> {
  const byMessage = new Map<string, ReactionSummary[]>();
  for (const r of rows) {
    const list = byMessage.get(r.message_id) ?? [];
    list.push({ emoji: r.emoji, count: r.count, userIds: r.user_ids });
    byMessage.set(r.message_id, list);
  }
  return byMessage;
}
