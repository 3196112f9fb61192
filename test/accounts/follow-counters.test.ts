// Follower and following numbers are kept on write (migration 0012): over the real server, every
// follow, refused second follow and unfollow leaves both users' profiles exact, seen by the user
// (`GET /user/me`) and by someone else (`GET /user/me?user_id=`), concurrent follows included.
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/fixture.js';
import { expectErrorEnvelope, registerAndLogin, type TestUser } from '../helpers/api.js';
import { AUTH } from './fixtures.js';

const server = useTestServer();
/** Looks at profiles only. */
let observer: TestUser;

beforeAll(async () => {
  observer = await registerAndLogin(server.current);
});

const newUser = () => registerAndLogin(server.current);
const followPath = (id: string) => `${AUTH}/users/${id}/follow`;
const follow = (from: TestUser, to: TestUser) => from.api.post(followPath(to.userId), undefined, { headers: { 'x-user-id': from.userId } });
const unfollow = (from: TestUser, to: TestUser) => from.api.delete(followPath(to.userId));

/** The user's numbers as they see them and as the observer sees them; both must agree. */
async function countsOf(user: TestUser): Promise<{ followers: number; following: number }> {
  const own = await user.api.get(`${AUTH}/user/me`);
  const seen = await observer.api.get(`${AUTH}/user/me?user_id=${user.userId}`);
  expect(own.status).toBe(200);
  expect(seen.status).toBe(200);
  const counts = { followers: own.body.data.follower_number, following: own.body.data.following_number };
  expect({ followers: seen.body.data.follower_number, following: seen.body.data.following_number }).toEqual(counts);
  return counts;
}

describe('follower and following numbers', () => {
  it('should count a follow, refuse a second one without counting it, and uncount the unfollow', async () => {
    const [ann, ben] = await Promise.all([newUser(), newUser()]);
    expect(await countsOf(ann)).toEqual({ followers: 0, following: 0 });

    expect((await follow(ann, ben)).status).toBe(200);
    expect(await countsOf(ann)).toEqual({ followers: 0, following: 1 });
    expect(await countsOf(ben)).toEqual({ followers: 1, following: 0 });

    expectErrorEnvelope(await follow(ann, ben), 400, 'follow.error.already_following');
    expect(await countsOf(ann)).toEqual({ followers: 0, following: 1 });
    expect(await countsOf(ben)).toEqual({ followers: 1, following: 0 });

    expect((await follow(ben, ann)).status).toBe(200);
    expect(await countsOf(ann)).toEqual({ followers: 1, following: 1 });
    expect(await countsOf(ben)).toEqual({ followers: 1, following: 1 });

    expect((await unfollow(ann, ben)).status).toBe(200);
    expect(await countsOf(ann)).toEqual({ followers: 1, following: 0 });
    expect(await countsOf(ben)).toEqual({ followers: 0, following: 1 });
    expectErrorEnvelope(await unfollow(ann, ben), 404, 'follow.error.not_following');
    expect(await countsOf(ben)).toEqual({ followers: 0, following: 1 });

    expect((await follow(ann, ben)).status).toBe(200);
    expect(await countsOf(ben)).toEqual({ followers: 1, following: 1 });
  });

  it('should leave the numbers unchanged by a refused self-follow', async () => {
    const cat = await newUser();
    expectErrorEnvelope(await cat.api.post(followPath(cat.userId), undefined, { headers: { 'x-user-id': cat.userId } }), 400, 'follow.error.self_follow');
    expect(await countsOf(cat)).toEqual({ followers: 0, following: 0 });
  });

  it('should stay exact under concurrent follows, mutual ones included', async () => {
    const star = await newUser();
    const fans = await Promise.all(Array.from({ length: 8 }, newUser));
    // Every fan follows the star while the star follows every fan back, all at once: the two ends
    // of a follow are updated in one order, so crossing follows queue rather than deadlock.
    const answers = await Promise.all(fans.flatMap((fan) => [follow(fan, star), follow(star, fan)]));
    expect(answers.map((r) => r.status)).toEqual(answers.map(() => 200));
    expect(await countsOf(star)).toEqual({ followers: fans.length, following: fans.length });
    for (const fan of fans) expect(await countsOf(fan)).toEqual({ followers: 1, following: 1 });

    const half = fans.slice(0, fans.length / 2);
    const undone = await Promise.all(half.flatMap((fan) => [unfollow(fan, star), unfollow(star, fan)]));
    expect(undone.map((r) => r.status)).toEqual(undone.map(() => 200));
    expect(await countsOf(star)).toEqual({ followers: fans.length - half.length, following: fans.length - half.length });
    for (const fan of half) expect(await countsOf(fan)).toEqual({ followers: 0, following: 0 });
  });
});
