// BlockService on a fresh database, no server (test/helpers/domain.ts): the bound on how many
// users one user may block, and the either-way reads the other services ask.
import { beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/shared/ids.js';
import { MAX_BLOCKS_PER_USER, type BlockService } from '../../src/blocks/service.js';
import { useTestDomain, type TestDomain } from '../helpers/domain.js';

const opened = useTestDomain();
let domain: TestDomain;
let blocks: BlockService;

beforeAll(() => {
  domain = opened.current;
  blocks = domain.blocks();
});

describe('BlockService', () => {
  it('should refuse a block past MAX_BLOCKS_PER_USER with 409 blocks.error.limit_reached', async () => {
    const carol = await domain.createUser();
    // Fixture: the stored blocks of a user at the bound, written through the repositories.
    for (let i = 0; i < MAX_BLOCKS_PER_USER; i++) {
      const id = newId();
      await domain.repositories.users.insert({
        id,
        username: `b_${id.slice(0, 12)}`,
        passwordHash: 'x',
        phoneNumber: `+8491${String(i).padStart(7, '0')}`,
        givenName: 'B',
        familyName: 'B',
        role: 'end_user',
      });
      await domain.repositories.blocks.insert(carol.userId, id);
    }
    const one = await domain.createUser();
    await expect(blocks.block(carol, one.userId)).rejects.toMatchObject({ status: 409, code: 'blocks.error.limit_reached' });
    expect(await blocks.eitherWay(carol.userId, one.userId)).toBe(false);
    // Lifting one makes room for another.
    const [first] = (await domain.repositories.blocks.relationsOf(carol.userId)).blocked;
    await blocks.unblock(carol, first);
    expect((await blocks.block(carol, one.userId)).created).toBe(true);
  }, 120_000);

  it('should read a block either way, and nothing between others', async () => {
    const [a, b, c] = [await domain.createUser(), await domain.createUser(), await domain.createUser()];
    await blocks.block(a, b.userId);
    expect(await blocks.eitherWay(a.userId, b.userId)).toBe(true);
    expect(await blocks.eitherWay(b.userId, a.userId)).toBe(true);
    expect(await blocks.eitherWay(a.userId, c.userId)).toBe(false);
    expect([...(await blocks.amongEitherWay(b.userId, [a.userId, c.userId]))]).toEqual([a.userId]);
    expect(await blocks.relationsOf(a.userId)).toEqual({ blocked: [b.userId], blockedBy: [] });
    expect(await blocks.relationsOf(b.userId)).toEqual({ blocked: [], blockedBy: [a.userId] });
    expect([...(await blocks.hiddenFrom(a.userId))]).toEqual([b.userId]);
    expect([...(await blocks.hiddenFrom(b.userId))]).toEqual([]);
  });
});
