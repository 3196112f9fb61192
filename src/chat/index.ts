// The public surface of src/chat/: what other domains and the doors use of it.
export type { ChatRepository } from './chat-repository.js';
export { messageDeletedViewSchema, messageReactionViewSchema, readViewSchema } from './event-views.js';
export { historyItemSchema, messageViewSchema } from './message-view.js';
export { createRoomBody, editMessageBody, messageIdParams, messagesQuery, readBody, roomIdParams, roomsQuery, sendMessageBody } from './schemas.js';
export { joinRoomPayload, roomReadPayload, typingPayload } from './schemas.js';
export { typingViewSchema } from './event-views.js';
export type { MessageView } from './message-view.js';
export type { MessageDeletedView, MessageReactionView, ReadView, TypingView } from './event-views.js';
