// HSTS on the answers Socket.IO's long-polling writes itself (CONTRACT §19: every answer behind a
// trusted proxy that says the request came over https): the handshake and the POST of a packet,
// as a browser on a network that blocks websockets makes them. Without https, none.
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/fixture.js';

const POLLING = '/socket.io/?EIO=4&transport=polling';

describe('HSTS on Socket.IO polling answers behind a trusted proxy', () => {
  const booted = useTestServer({ TRUST_PROXY: '1' });

  const handshake = async (proto: string) => {
    const res = await fetch(booted.url + POLLING, { headers: { 'X-Forwarded-Proto': proto } });
    expect(res.status).toBe(200);
    const sid = JSON.parse((await res.text()).slice(1)).sid as string;
    return { hsts: res.headers.get('strict-transport-security'), sid };
  };

  it('should send it on the handshake and on a packet posted over https', async () => {
    const opened = await handshake('https');
    expect(opened.hsts).toBe('max-age=31536000');
    const posted = await fetch(`${booted.url}${POLLING}&sid=${opened.sid}`, {
      method: 'POST',
      headers: { 'X-Forwarded-Proto': 'https', 'Content-Type': 'text/plain;charset=UTF-8' },
      body: '40/processing,',
    });
    expect(posted.status).toBe(200);
    expect(await posted.text()).toBe('ok');
    expect(posted.headers.get('strict-transport-security')).toBe('max-age=31536000');
  });

  it('should not send it when the proxy says http', async () => {
    expect((await handshake('http')).hsts).toBeNull();
  });
});
