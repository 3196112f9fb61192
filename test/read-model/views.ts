// Every read in which one content item shows, from one node: its detail (anonymous and signed in)
// and the first pages of the hot listings (`/all`, `/completed` in two languages and inside a map
// viewport, a follower's `/feeds`), plus the profile, feed and session reads of the other scenarios.
// Each read is one request, answered as the node answers it now: no retries.
import type { ApiResponse, TestUser } from '../helpers/api.js';
import { CONTENT } from '../content/fixtures.js';
import { on, type NodeRef } from './cluster.js';

/** Where the items of the scenarios are (fullBody's place), and a map zoom that holds them. */
export const HOME = { latitude: 10.7296, longitude: 106.7218, zoom_level: 13 };

/** The first pages as the hot-path benchmarks read them. */
const ALL_FIRST_PAGE = `${CONTENT}/all?per_page=20`;
const COMPLETED_FIRST_PAGE = `${CONTENT}/completed`;
const VIEWPORT_FIRST_PAGE = `${CONTENT}/completed?latitude=${HOME.latitude}&longitude=${HOME.longitude}&zoom_level=${HOME.zoom_level}`;
const FEED_FIRST_PAGE = `${CONTENT}/feeds`;
/** One item a page, so nearly every item is read from a page after the first (a cursor's). */
const FEED_ONE_PER_PAGE = `${CONTENT}/feeds?per_page=1`;
/** More pages than the scenarios' feeds have: a walk that does not end is a failure. */
const MAX_FEED_PAGES = 100;

export type Language = 'en' | 'vi' | 'ko';

/** One place an item shows: `item` is the detail's data or the listing entry, undefined when absent. */
export interface View {
  label: string;
  /** The language the item's blocks were asked in. */
  lang: Language;
  /** The detail's status (200, 404, …); listings must answer 200 or the read throws. */
  status: number;
  item: any | undefined;
}

function ok(res: ApiResponse, what: string): any {
  if (res.status !== 200) throw new Error(`${what} answered ${res.status}: ${res.text}`);
  return res.body.data;
}

const find = (items: any[], id: string) => items.find((i) => i.id === id);

/** The item `id` in every read, `viewer` being the signed-in reader (a follower of its uploader, for /feeds). */
export async function itemViews(node: NodeRef, id: string, viewer: TestUser): Promise<View[]> {
  const anonymous = on(node, null);
  const signedIn = on(node, viewer);
  const detailAnonymous = await anonymous.get(`/api/v1/content/${id}`);
  const detailSignedIn = await signedIn.get(`/api/v1/content/${id}`);
  const allAnonymous = ok(await anonymous.get(ALL_FIRST_PAGE), '/all').item;
  const allSignedIn = ok(await signedIn.get(ALL_FIRST_PAGE), '/all').item;
  const completedEn = ok(await anonymous.get(COMPLETED_FIRST_PAGE), '/completed').items;
  const completedVi = ok(await signedIn.get(COMPLETED_FIRST_PAGE, { headers: { 'x-language': 'vi' } }), '/completed').items;
  const viewport = ok(await anonymous.get(VIEWPORT_FIRST_PAGE), '/completed in a viewport').items;
  const feed = ok(await signedIn.get(FEED_FIRST_PAGE), '/feeds').items;
  const feedPages = await feedWalk(node, viewer);
  return [
    { label: 'detail (anonymous)', lang: 'en', status: detailAnonymous.status, item: detailAnonymous.status === 200 ? detailAnonymous.body.data : undefined },
    { label: 'detail (signed in)', lang: 'en', status: detailSignedIn.status, item: detailSignedIn.status === 200 ? detailSignedIn.body.data : undefined },
    { label: '/all (anonymous)', lang: 'en', status: 200, item: find(allAnonymous, id) },
    { label: '/all (signed in)', lang: 'en', status: 200, item: find(allSignedIn, id) },
    { label: '/completed (en, anonymous)', lang: 'en', status: 200, item: find(completedEn, id) },
    { label: '/completed (vi, signed in)', lang: 'vi', status: 200, item: find(completedVi, id) },
    { label: '/completed (viewport)', lang: 'en', status: 200, item: find(viewport, id) },
    { label: '/feeds (follower)', lang: 'en', status: 200, item: find(feed, id) },
    { label: '/feeds (follower, one item a page, every cursor)', lang: 'en', status: 200, item: find(feedPages, id) },
  ];
}

/** Every item of `viewer`'s feed, read one a page, following each next_cursor to the end. */
export async function feedWalk(node: NodeRef, viewer: TestUser): Promise<any[]> {
  return (await feedWalkWithCursors(node, viewer)).items;
}

/** The feed read one item a page, with the cursor of each page after the first (as a client holds them). */
export async function feedWalkWithCursors(node: NodeRef, viewer: TestUser): Promise<{ items: any[]; cursors: string[] }> {
  const items: any[] = [];
  const cursors: string[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < MAX_FEED_PAGES; page++) {
    const path: string = cursor ? `${FEED_ONE_PER_PAGE}&cursor=${encodeURIComponent(cursor)}` : FEED_ONE_PER_PAGE;
    const data = ok(await on(node, viewer).get(path), `/feeds page ${page + 1}`);
    items.push(...data.items);
    if (!data.has_more) return { items, cursors };
    cursor = data.next_cursor as string;
    cursors.push(cursor);
  }
  throw new Error(`the feed has more than ${MAX_FEED_PAGES} pages`);
}

/** The items of the feed pages after `cursors` (one item a page), read again. */
export async function feedPagesAt(node: NodeRef, viewer: TestUser, cursors: string[]): Promise<any[]> {
  const items: any[] = [];
  for (const cursor of cursors)
    items.push(...ok(await on(node, viewer).get(`${FEED_ONE_PER_PAGE}&cursor=${encodeURIComponent(cursor)}`), '/feeds by cursor').items);
  return items;
}

/** The project name of a view's item in its language (the detail keys blocks by language, listings list them). */
export function projectName(view: View): string | undefined {
  const blocks = view.item?.content_info;
  if (!blocks) return undefined;
  const block = Array.isArray(blocks) ? blocks.find((b: { lang: string }) => b.lang === view.lang) : blocks[view.lang];
  return block?.project_name;
}

/** The ids of `viewer`'s first feed page, in order. */
export async function feedIds(node: NodeRef, viewer: TestUser): Promise<string[]> {
  return ok(await on(node, viewer).get(FEED_FIRST_PAGE), '/feeds').items.map((i: { id: string }) => i.id);
}

/** `GET /user/me` as `viewer` (of `userId` when given). */
export function profile(node: NodeRef, viewer: TestUser, userId?: string): Promise<ApiResponse> {
  return on(node, viewer).get(`/auth/api/v1/user/me${userId ? `?user_id=${userId}` : ''}`);
}

/** The profile data, which must be answered. */
export async function profileData(node: NodeRef, viewer: TestUser, userId?: string): Promise<any> {
  return ok(await profile(node, viewer, userId), '/user/me');
}

/** The session ids `user` sees as active. */
export async function activeSessionIds(node: NodeRef, user: TestUser): Promise<string[]> {
  return ok(await on(node, user).get(`${CONTENT}/user/sessions`), '/user/sessions').sessions.map((s: { session_id: string }) => s.session_id);
}

/** The top-level comments of an item (first page) as an anonymous reader. */
export function comments(node: NodeRef, contentId: string): Promise<ApiResponse> {
  return on(node, null).get(`/sns/api/v1/comments/${contentId}`);
}
