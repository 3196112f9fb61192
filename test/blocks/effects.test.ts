// What a block changes from then on (CONTRACT §21), over the real server: between the two no
// comment, reply, message, room or notification; the blocker sees none of the blocked user's
// items, comments or messages in the listings, the feed, the comment lists and the chat history;
// the blocked user's own answers do not change. Refusals first.
import { beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { useTestServer } from '../helpers/fixture.js';
import { expectErrorEnvelope, registerAndLogin, type TestUser } from '../helpers/api.js';
import { createContent } from '../sns/fixtures.js';
import { block, follow, likeItem, reactToComment, reactToMessage, unblock, unlikeItem, unreactToMessage } from './fixtures.js';
import { indexReady } from '../content/search.fixtures.js';

const SNS = '/sns/api/v1';
const CHAT = `${SNS}/chat`;
const CONTENT = '/content/api/v1';

const server = useTestServer();
let carol: TestUser; // the blocker
let dan: TestUser; // the blocked user
let erin: TestUser; // a third user, in touch with both
let bob: TestUser; // a bystander

const comment = (user: TestUser, body: Record<string, unknown>) => user.api.post(`${SNS}/comments`, body);
const newRoom = async (owner: TestUser, others: TestUser[], name: string | undefined = `room-${randomUUID().slice(0, 8)}`) =>
  owner.api.post(`${CHAT}/rooms`, { memberIds: others.map((u) => u.userId), ...(name === undefined ? {} : { name }) });
const send = (user: TestUser, roomId: string, msg: string) => user.api.post(`${CHAT}/messages`, { roomId, msg });
const history = async (user: TestUser, roomId: string) => (await user.api.get(`${CHAT}/rooms/${roomId}/messages?limit=100`)).body.data.messages as any[];
const inbox = async (user: TestUser) => (await user.api.get(`${SNS}/notifications?limit=100`)).body.data.notifications as any[];
const topLevel = async (viewer: TestUser, contentId: string) => (await viewer.api.get(`${SNS}/comments/${contentId}?limit=100`)).body.data.comments as any[];
const uploadersIn = (items: any[]) => new Set(items.map((i) => i.uploader.user_id));

beforeAll(async () => {
  carol = await registerAndLogin(server.current, { given_name: 'Carol', family_name: 'Blocker' });
  dan = await registerAndLogin(server.current, { given_name: 'Dan', family_name: 'Blocked', username: `dan${randomUUID().slice(0, 8)}` });
  erin = await registerAndLogin(server.current, { given_name: 'Erin', family_name: 'Third' });
  bob = await registerAndLogin(server.current, { given_name: 'Bob', family_name: 'Bystander' });
});

describe('between the two, from then on', () => {
  let carolsItem: string;
  let dansItem: string;
  let erinsItem: string;
  let dansComment: string;
  let carolsComment: string;
  let groupRoom: string;
  let dansEarlyMessage: string;

  beforeAll(async () => {
    [carolsItem, dansItem, erinsItem] = [
      await createContent(server.current, carol),
      await createContent(server.current, dan),
      await createContent(server.current, erin),
    ];
    dansComment = (await comment(dan, { contentId: erinsItem, msg: 'Dan was here' })).body.data._id;
    carolsComment = (await comment(carol, { contentId: erinsItem, msg: 'Carol was here' })).body.data._id;
    const room = await newRoom(carol, [dan, erin]);
    expect(room.status).toBe(201);
    groupRoom = room.body.data.roomId;
    dansEarlyMessage = (await send(dan, groupRoom, 'hello from Dan')).body.data._id;
    expect((await block(carol, dan.userId)).status).toBe(201);
  });

  it("should refuse a comment on the other one's content, either way, with 403 comments.error.blocked", async () => {
    expectErrorEnvelope(await comment(dan, { contentId: carolsItem, msg: 'hi' }), 403, 'comments.error.blocked');
    expectErrorEnvelope(await comment(carol, { contentId: dansItem, msg: 'hi' }), 403, 'comments.error.blocked');
    expect(await topLevel(erin, carolsItem)).toEqual([]);
    expect(await topLevel(erin, dansItem)).toEqual([]);
  });

  it("should refuse a reply to the other one's comment, either way, with 403 comments.error.blocked", async () => {
    expectErrorEnvelope(await comment(carol, { contentId: erinsItem, msg: 'no', parentId: dansComment }), 403, 'comments.error.blocked');
    expectErrorEnvelope(await comment(dan, { contentId: erinsItem, msg: 'no', parentId: carolsComment }), 403, 'comments.error.blocked');
    // Both still comment on a third user's item.
    expect((await comment(dan, { contentId: erinsItem, msg: 'still here' })).status).toBe(201);
  });

  it('should refuse a message in a room both are in, either way, with 403 chat.error.blocked', async () => {
    expectErrorEnvelope(await send(dan, groupRoom, 'let me in'), 403, 'chat.error.blocked');
    expectErrorEnvelope(await send(carol, groupRoom, 'no'), 403, 'chat.error.blocked');
    expect((await history(erin, groupRoom)).map((m) => m.msg)).toEqual(['hello from Dan']);
  });

  it('should refuse a new room with the other one as a member, either way, with 403 chat.error.blocked', async () => {
    expectErrorEnvelope(await newRoom(dan, [carol], undefined), 403, 'chat.error.blocked');
    expectErrorEnvelope(await newRoom(carol, [dan, erin]), 403, 'chat.error.blocked');
    expectErrorEnvelope(await newRoom(dan, [erin, carol]), 403, 'chat.error.blocked');
    // A room with others is fine.
    expect((await newRoom(dan, [erin])).status).toBe(201);
  });

  it('should not notify a mention of the other one, and keep the text', async () => {
    const before = (await inbox(carol)).length;
    const res = await comment(dan, { contentId: erinsItem, msg: `ask @${carol.username} about it` });
    expect(res.status).toBe(201);
    expect(res.body.data.msg).toBe(`ask @${carol.username} about it`);
    // Erin, the uploader, is told of the comment (a later notification than any mention would be).
    expect((await inbox(erin)).some((n) => n.type === 'comment' && n.data.commentId === res.body.data._id)).toBe(true);
    const after = await inbox(carol);
    expect(after.length).toBe(before);
    expect(after.filter((n) => n.actor?.userId === dan.userId)).toEqual([]);
  });

  it('should notify nothing from one to the other', async () => {
    // Dan's earlier comment (before the block) may have told nobody of Carol; from now on, a
    // mention of Dan by Carol is not told either.
    const res = await comment(carol, { contentId: erinsItem, msg: `@${dan.username} hello` });
    expect(res.status).toBe(201);
    expect((await inbox(dan)).filter((n) => n.actor?.userId === carol.userId)).toEqual([]);
  });

  it('should show each as never seen to the other in GET /presence, and others as usual', async () => {
    const asked = await carol.api.get(`${SNS}/presence?user_ids=${dan.userId}`);
    expect(asked.status).toBe(200);
    expect(asked.body.data.users).toEqual([{ user_id: dan.userId, online: false, last_seen_at: null }]);
  });

  it('should let the two follow, comment and message again once the block is lifted', async () => {
    const [frank, gina] = [await registerAndLogin(server.current), await registerAndLogin(server.current)];
    const item = await createContent(server.current, frank);
    expect((await block(frank, gina.userId)).status).toBe(201);
    expectErrorEnvelope(await comment(gina, { contentId: item, msg: 'x' }), 403, 'comments.error.blocked');
    expect((await unblock(frank, gina.userId)).status).toBe(200);
    expect((await comment(gina, { contentId: item, msg: 'x' })).status).toBe(201);
    expect((await follow(gina, frank.userId)).status).toBe(200);
    expect((await newRoom(gina, [frank], undefined)).status).toBe(201);
  });

  describe('reactions', () => {
    // Their own four users, so the rooms and items above keep their assertions.
    let gina: TestUser; // the blocker
    let hugo: TestUser; // the blocked user
    let ivy: TestUser; // a third user
    const at: Record<string, string> = {};

    beforeAll(async () => {
      [gina, hugo, ivy] = [await registerAndLogin(server.current), await registerAndLogin(server.current), await registerAndLogin(server.current)];
      [at.ginasItem, at.hugosItem, at.ivysItem] = [
        await createContent(server.current, gina),
        await createContent(server.current, hugo),
        await createContent(server.current, ivy),
      ];
      at.ginasComment = (await comment(gina, { contentId: at.ivysItem, msg: 'Gina' })).body.data._id;
      at.hugosComment = (await comment(hugo, { contentId: at.ivysItem, msg: 'Hugo' })).body.data._id;
      at.ivysCommentOnGinas = (await comment(ivy, { contentId: at.ginasItem, msg: 'Ivy on Gina' })).body.data._id;
      at.ivysComment = (await comment(ivy, { contentId: at.ivysItem, msg: 'Ivy' })).body.data._id;
      at.room = (await newRoom(gina, [hugo, ivy])).body.data.roomId;
      at.ginasMessage = (await send(gina, at.room, 'from Gina')).body.data._id;
      at.hugosMessage = (await send(hugo, at.room, 'from Hugo')).body.data._id;
      at.ivysMessage = (await send(ivy, at.room, 'from Ivy')).body.data._id;
      // Before the block: Hugo likes Gina's item and puts an emoji on her message.
      expect((await likeItem(hugo, at.ginasItem)).status).toBe(200);
      expect((await reactToMessage(hugo, at.ginasMessage, '🎉')).status).toBe(200);
      expect((await block(gina, hugo.userId)).status).toBe(201);
    });

    it("should refuse a reaction to the other one's item, comment or message, either way, with 403 reactions.error.blocked", async () => {
      expectErrorEnvelope(await likeItem(hugo, at.ginasItem), 403, 'reactions.error.blocked');
      expectErrorEnvelope(await likeItem(gina, at.hugosItem), 403, 'reactions.error.blocked');
      expectErrorEnvelope(await reactToComment(hugo, at.ginasComment), 403, 'reactions.error.blocked');
      expectErrorEnvelope(await reactToComment(gina, at.hugosComment), 403, 'reactions.error.blocked');
      expectErrorEnvelope(await reactToMessage(hugo, at.ginasMessage), 403, 'reactions.error.blocked');
      expectErrorEnvelope(await reactToMessage(gina, at.hugosMessage), 403, 'reactions.error.blocked');
      // Under the other one's item, as for a comment there.
      expectErrorEnvelope(await reactToComment(hugo, at.ivysCommentOnGinas), 403, 'reactions.error.blocked');
      // Nothing was stored: Gina's message carries Hugo's earlier emoji only.
      const ginasMessage = (await history(ivy, at.room)).find((m) => m._id === at.ginasMessage);
      expect(ginasMessage.reactions).toEqual([expect.objectContaining({ emoji: '🎉', userIds: [hugo.userId] })]);
    });

    it("should still let both react to a third user's item, comment and message", async () => {
      for (const user of [gina, hugo]) {
        expect((await likeItem(user, at.ivysItem)).status).toBe(200);
        expect((await reactToComment(user, at.ivysComment)).status).toBe(200);
        expect((await reactToMessage(user, at.ivysMessage, user === gina ? '👍' : '👀')).status).toBe(200);
      }
    });

    it('should let the blocked user take back what they gave before the block', async () => {
      const unliked = await unlikeItem(hugo, at.ginasItem);
      expect(unliked.status).toBe(200);
      expect(unliked.body.data.reacted).toBe(false);
      const unreacted = await unreactToMessage(hugo, at.ginasMessage, '🎉');
      expect(unreacted.status).toBe(200);
      expect(unreacted.body.data.reactions).toEqual([]);
    });
  });

  describe('what the blocker no longer sees', () => {
    it("should leave the blocked user's comments and replies out of the blocker's comment lists only", async () => {
      const top = (await comment(erin, { contentId: erinsItem, msg: 'Erin asks' })).body.data._id;
      expect((await comment(dan, { contentId: erinsItem, msg: 'Dan answers', parentId: top })).status).toBe(201);
      expect((await comment(bob, { contentId: erinsItem, msg: 'Bob answers', parentId: top })).status).toBe(201);

      const carolSees = await topLevel(carol, erinsItem);
      expect(carolSees.map((c) => c.author.userId)).not.toContain(dan.userId);
      expect(carolSees.map((c) => c._id)).toContain(carolsComment);
      const carolReplies = (await carol.api.get(`${SNS}/comments/${top}/replies`)).body.data.comments as any[];
      expect(carolReplies.map((c) => c.msg)).toEqual(['Bob answers']);

      // Everyone else, Dan included, sees them as before.
      expect((await topLevel(bob, erinsItem)).map((c) => c._id)).toContain(dansComment);
      expect((await topLevel(dan, erinsItem)).map((c) => c._id)).toContain(carolsComment);
      const bobReplies = (await bob.api.get(`${SNS}/comments/${top}/replies`)).body.data.comments as any[];
      expect(bobReplies.map((c) => c.msg)).toEqual(['Dan answers', 'Bob answers']);
    });

    it("should leave the blocked user's messages out of the blocker's history and room list", async () => {
      expect((await history(carol, groupRoom)).map((m) => m._id)).not.toContain(dansEarlyMessage);
      expect((await history(erin, groupRoom)).map((m) => m._id)).toContain(dansEarlyMessage);
      const rooms = (await carol.api.get(`${CHAT}/rooms`)).body.data.rooms as any[];
      const listed = rooms.find((r) => r.roomId === groupRoom) ?? rooms.find((r) => r._id === groupRoom);
      expect(listed).toBeDefined();
      expect(listed.last_message).toBeNull();
      expect(listed.unread_count).toBe(0);
    });

    it("should leave the blocked user's items out of /all, /completed and /feeds for the blocker, and only for them", async () => {
      // Newer items push Dan's past the cached pages when read one a page.
      for (let i = 0; i < 3; i++) await createContent(server.current, erin);
      // Read by a bystander first, so the shared first pages are cached with Dan's item in them.
      const bobAll = (await bob.api.get(`${CONTENT}/all?per_page=100`)).body.data.item;
      expect(uploadersIn(bobAll).has(dan.userId)).toBe(true);
      const bobCompleted = (await bob.api.get(`${CONTENT}/completed?per_page=100`)).body.data.items;
      expect(uploadersIn(bobCompleted).has(dan.userId)).toBe(true);

      const carolAll = await carol.api.get(`${CONTENT}/all?per_page=100`);
      expect(carolAll.status).toBe(200);
      expect(uploadersIn(carolAll.body.data.item).has(dan.userId)).toBe(false);
      expect(uploadersIn(carolAll.body.data.item).has(erin.userId)).toBe(true);
      const carolCompleted = (await carol.api.get(`${CONTENT}/completed?per_page=100`)).body.data.items;
      expect(uploadersIn(carolCompleted).has(dan.userId)).toBe(false);
      expect(uploadersIn(carolCompleted).has(erin.userId)).toBe(true);
      const carolSearch = (await carol.api.get(`${CONTENT}/all?per_page=100&search=River`)).body.data.item;
      expect(uploadersIn(carolSearch).has(dan.userId)).toBe(false);
      // A deeper page (not cached) is filtered too: with one item a page, find the page of Dan's
      // item as the bystander reads it. The listing index leaves Dan's items out of the blocker's
      // listing itself: the same page holds the next item, and the total counts one item less.
      await indexReady(server.current);
      let dansPage = 0;
      for (let page = 1; page <= 20 && !dansPage; page++) {
        const items = (await bob.api.get(`${CONTENT}/completed?per_page=1&page=${page}`)).body.data.items;
        if (uploadersIn(items).has(dan.userId)) dansPage = page;
      }
      expect(dansPage).toBeGreaterThan(0);
      const bobsPages = (await bob.api.get(`${CONTENT}/completed?per_page=1&page=${dansPage}`)).body.data;
      const carolsPage = (await carol.api.get(`${CONTENT}/completed?per_page=1&page=${dansPage}`)).body.data;
      expect(carolsPage.page).toBe(dansPage);
      expect(uploadersIn(carolsPage.items).has(dan.userId)).toBe(false);
      expect(carolsPage.total).toBe(bobsPages.total - 1);
      expect(carolsPage.items).toHaveLength(dansPage <= carolsPage.total ? 1 : 0);
      const bobsTotal = (await bob.api.get(`${CONTENT}/all?per_page=1`)).body.data.total;
      const carolsTotal = (await carol.api.get(`${CONTENT}/all?per_page=1`)).body.data.total;
      expect(carolsTotal).toBe(bobsTotal - 1);

      const carolFeed = (await carol.api.get(`${CONTENT}/feeds?per_page=50`)).body.data.items as any[];
      expect(carolFeed.map((i) => i.id ?? i._id)).not.toContain(dansItem);
      expect(carolFeed.map((i) => i.id ?? i._id)).toContain(erinsItem);

      // A saved search's matches (a search too).
      const saved = (user: TestUser) => user.api.post(`${CONTENT}/saved-searches`, { name: 'River', filters: { search: 'River' }, notify: 'off' });
      const carolsSearch = await saved(carol);
      const bobsSearch = await saved(bob);
      expect(carolsSearch.status).toBe(201);
      const matches = async (user: TestUser, id: string) =>
        (await user.api.get(`${CONTENT}/saved-searches/${id}/matches?per_page=100`)).body.data.items as any[];
      expect(uploadersIn(await matches(bob, bobsSearch.body.data.id)).has(dan.userId)).toBe(true);
      const carolsMatches = await matches(carol, carolsSearch.body.data.id);
      expect(uploadersIn(carolsMatches).has(dan.userId)).toBe(false);
      expect(uploadersIn(carolsMatches).has(erin.userId)).toBe(true);

      // The cache was not changed for others: the bystander still sees Dan's item, and Dan sees Carol's.
      expect(uploadersIn((await bob.api.get(`${CONTENT}/all?per_page=100`)).body.data.item).has(dan.userId)).toBe(true);
      expect(uploadersIn((await dan.api.get(`${CONTENT}/completed?per_page=100`)).body.data.items).has(carol.userId)).toBe(true);
    });
  });
});
