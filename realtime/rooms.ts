// Room names, one place so emitters and joiners agree.
export const rooms = {
  user: (userId: string) => `user:${userId}`,
  session: (sessionId: string) => `session:${sessionId}`,
  chat: (roomId: string) => `room:${roomId}`,
  content: (contentId: string) => `content:${contentId}`,
  /** /feed: the followers of an uploader. */
  author: (userId: string) => `author:${userId}`,
  /** /feed: the watchers of an item's counts. */
  watch: (contentId: string) => `watch:${contentId}`,
  /** /feed: the sockets that read items in one language. */
  language: (lang: string) => `lang:${lang}`,
};
