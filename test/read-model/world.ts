// The users and published items the cache-truth scenarios work on, made before any scenario reads
// anything, so that no scenario depends on another's change having reached a cache. Each
// scenario has its own item (or users), and there are fewer items than a first page holds, so
// every item is on the first page of every listing.
import type { TestServer } from '../helpers/server.js';
import { loginAdmin, registerAndLogin, type TestUser } from '../helpers/api.js';
import { follow } from '../feed/fixtures.js';
import { publishItem } from './publishing.js';

export interface World {
  admin: TestUser;
  /** Uploads the items that are edited, deleted, reacted to and commented on. */
  owner: TestUser;
  /** Follows owner and renamed: their items lead this user's feed. The signed-in reader. */
  follower: TestUser;
  /** Follows nobody until the follow scenario. */
  viewer: TestUser;
  /** Followed by viewer in the follow scenario. */
  followed: TestUser;
  /** Uploads an item newer than followed's, which leads viewer's feed while viewer follows nobody. */
  other: TestUser;
  /** Changes their name and avatar. */
  renamed: TestUser;
  /** Whose sessions are revoked. */
  sessions: TestUser;
  /** Has privacy.session_timeout = 1 minute. */
  idle: TestUser;
  items: {
    followed: string;
    other: string;
    edit: string;
    remove: string;
    react: string;
    comment: string;
    renamed: string;
  };
}

export async function buildWorld(server: TestServer): Promise<World> {
  const [admin, owner, follower, viewer, followed, other, renamed, sessions, idle] = await Promise.all([
    loginAdmin(server),
    registerAndLogin(server, { given_name: 'Owen', family_name: 'Owner' }),
    registerAndLogin(server),
    registerAndLogin(server),
    registerAndLogin(server, { given_name: 'Fay', family_name: 'Followed' }),
    registerAndLogin(server, { given_name: 'Otto', family_name: 'Other' }),
    registerAndLogin(server, { given_name: 'Rita', family_name: 'Before' }),
    registerAndLogin(server),
    registerAndLogin(server),
  ]);

  const settings = await idle.api.put('/content/api/v1/user/settings', { privacy: { session_timeout: 1 } });
  if (settings.status !== 200) throw new Error(`settings failed: ${settings.status} ${settings.text}`);

  await follow(follower, owner);
  await follow(follower, renamed);

  // One after the other: followed's item is older than other's.
  const items = {
    followed: await publishItem(server, followed),
    other: await publishItem(server, other),
    edit: await publishItem(server, owner),
    remove: await publishItem(server, owner),
    react: await publishItem(server, owner),
    comment: await publishItem(server, owner),
    renamed: await publishItem(server, renamed),
  };
  return { admin, owner, follower, viewer, followed, other, renamed, sessions, idle, items };
}
