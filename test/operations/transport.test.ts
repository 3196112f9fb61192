// The transport must be what it claims (issue 13): the installed uWebSockets.js runs natively on
// this Node; on its JavaScript fallback start-up refuses. ALLOW_SLOW_TRANSPORT=true lets a
// fallback through only if it can serve our requests, which the fallback of the build we install
// cannot (checked here on the real module), so with it the process still refuses, and says why.
// The fallback is forced with the package's own switch, UWS_USE_FALLBACK=true (what happens by
// itself on a Node it has no binary for).
import { afterAll, describe, expect, it } from 'vitest';
import { detectTransport, fallbackCanServe, transportDecision } from '../../http/transport.js';
import { cleanUpChildren, freshDataDir, startChild } from '../helpers/child-process.js';

afterAll(() => cleanUpChildren());

describe('transport detection', () => {
  it('finds the native binary on this Node', () => {
    expect(process.versions.modules).toBe('115');
    expect(detectTransport()).toBe('uws-native');
  });

  it('finds that the installed fallback cannot serve requests (no HttpRequest.forEach, getQuery throws)', () => {
    expect(fallbackCanServe()).toBe(false);
  });

  it('starts on the native transport; on a fallback only with the override, and only one that serves', () => {
    expect(transportDecision({ transport: 'uws-native', fallbackServes: false }, { allowSlowTransport: false, fallbackForced: false })).toEqual({
      start: true,
    });
    const slow = { transport: 'uws-js-fallback' as const, fallbackServes: true };
    const refused = transportDecision(slow, { allowSlowTransport: false, fallbackForced: false });
    expect(refused.start).toBe(false);
    if (!refused.start) expect(refused.reason).toMatch(/no native binary for Node .*ALLOW_SLOW_TRANSPORT=true/);
    expect(transportDecision(slow, { allowSlowTransport: true, fallbackForced: false })).toMatchObject({
      start: true,
      warning: expect.stringMatching(/ALLOW_SLOW_TRANSPORT=true/),
    });
    const broken = transportDecision({ transport: 'uws-js-fallback', fallbackServes: false }, { allowSlowTransport: true, fallbackForced: false });
    expect(broken.start).toBe(false);
    if (!broken.start) expect(broken.reason).toMatch(/cannot serve .* ALLOW_SLOW_TRANSPORT cannot help/);
  });
});

describe('a process on the fallback', () => {
  it('refuses to start, with a message naming the override', async () => {
    const node = startChild(['--import', 'tsx', 'main.ts'], { DATA_DIR: freshDataDir(), UWS_USE_FALLBACK: 'true' });
    expect(await node.exited).toBe(1);
    expect(node.stderr()).toMatch(/start failed: uWebSockets\.js runs its slow JavaScript fallback \(UWS_USE_FALLBACK is set\)/);
    expect(node.stderr()).toContain('ALLOW_SLOW_TRANSPORT');
    expect(node.stdout()).not.toContain('service listening');
  }, 90_000);

  it('still refuses with ALLOW_SLOW_TRANSPORT=true, since this fallback cannot serve a request', async () => {
    const node = startChild(['--import', 'tsx', 'main.ts'], { DATA_DIR: freshDataDir(), UWS_USE_FALLBACK: 'true', ALLOW_SLOW_TRANSPORT: 'true' });
    expect(await node.exited).toBe(1);
    expect(node.stderr()).toMatch(/cannot serve this service's requests/);
    expect(node.stdout()).not.toContain('service listening');
  }, 90_000);
});
