// Blocking is rate limited (docs/moderation.md, "Blocks"): block and unblock share the `blocks`
// limit of 30 a minute per user, times RATE_LIMIT_SCALE (2 here, so two accounts can be made
// from one address within the `auth` limit): the 61st call in the window is 429.
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/fixture.js';
import { expectErrorEnvelope, registerAndLogin } from '../helpers/api.js';
import { block, blockedList, unblock } from './fixtures.js';

const server = useTestServer({ RATE_LIMIT_SCALE: '2' });

describe('the blocks rate limit', () => {
  it('should answer 429 past 60 block and unblock calls a minute, and keep the list as it was', async () => {
    const carol = await registerAndLogin(server.current);
    const dan = await registerAndLogin(server.current);
    const statuses: number[] = [];
    for (let i = 0; i < 60; i++) statuses.push((i % 2 === 0 ? await block(carol, dan.userId) : await unblock(carol, dan.userId)).status);
    expect(statuses.filter((s) => s === 429)).toEqual([]);
    const refused = await block(carol, dan.userId);
    expectErrorEnvelope(refused, 429, 'rate_limit.error');
    expect(refused.headers.get('retry-after')).not.toBeNull();
    // The 60th call unblocked; the refused 61st did not block again.
    expect((await blockedList(carol)).body.data.items).toEqual([]);
  });
});
