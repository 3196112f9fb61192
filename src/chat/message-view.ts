// The chat message of SPEC 2.9 as clients see it (REST answers, `message:new` pushes, the
// `chat.message` domain event): types only, so the event map can name it without importing a service.

export interface ChatPerson {
  userId: string;
  name: string;
  picture: string | null;
}

/** SPEC 2.9 message. */
export interface MessageView {
  _id: string;
  roomId: string;
  msg: string;
  sender: ChatPerson;
  attachments: { type: string; fileName: string; url: string; downloadable: boolean }[];
  reactions: unknown[];
  createdAt: string;
}
