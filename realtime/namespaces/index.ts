// Every namespace the server opens, in the order the AsyncAPI document lists them. A new namespace
// is declared in its own file (realtime/namespace.ts says how) and added here; nothing else.
import { chatNamespace } from './chat.js';
import { commentsNamespace } from './comments.js';
import { notificationsNamespace } from './notifications.js';
import { processingNamespace } from './processing.js';
import { feedNamespace } from './feed.js';

export const namespaces = [chatNamespace, commentsNamespace, notificationsNamespace, processingNamespace, feedNamespace] as const;

/** Every namespace the server opens: the declared ones and the root one, which carries no event. */
export const NAMESPACES = ['/', ...namespaces.map((declared) => declared.name)] as const;
