// Drizzle mirror of migrations/0004_sns.sql (the SQL file is the source of truth).
import { pgTable, uuid, text, timestamp, jsonb, primaryKey } from 'drizzle-orm/pg-core';

const ts = (name: string) => timestamp(name, { withTimezone: true }).notNull().defaultNow();

export const comments = pgTable('comments', {
  id: uuid('id').primaryKey(),
  contentId: uuid('content_id').notNull(),
  authorId: uuid('author_id').notNull(),
  parentId: uuid('parent_id'),
  msg: text('msg').notNull(),
  createdAt: ts('created_at'),
  updatedAt: ts('updated_at'),
});

export const commentReactions = pgTable(
  'comment_reactions',
  {
    commentId: uuid('comment_id').notNull(),
    userId: uuid('user_id').notNull(),
    emoji: text('emoji').notNull(),
    createdAt: ts('created_at'),
    updatedAt: ts('updated_at'),
  },
  (t) => [primaryKey({ columns: [t.commentId, t.userId] })],
);

export const chatRooms = pgTable('chat_rooms', {
  id: uuid('id').primaryKey(),
  name: text('name'),
  directKey: text('direct_key').unique(),
  createdBy: uuid('created_by'),
  createdAt: ts('created_at'),
  lastMessageAt: timestamp('last_message_at', { withTimezone: true }),
});

export const chatRoomMembers = pgTable(
  'chat_room_members',
  {
    roomId: uuid('room_id').notNull(),
    userId: uuid('user_id').notNull(),
    joinedAt: ts('joined_at'),
  },
  (t) => [primaryKey({ columns: [t.roomId, t.userId] })],
);

export const chatMessages = pgTable('chat_messages', {
  id: uuid('id').primaryKey(),
  roomId: uuid('room_id').notNull(),
  senderId: uuid('sender_id').notNull(),
  msg: text('msg').notNull().default(''),
  attachments: jsonb('attachments').notNull().default([]),
  createdAt: ts('created_at'),
});
