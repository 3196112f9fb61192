// Configuration (CONTRACT §1): defaults, and a bad value stops the start with one line naming
// the variable.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

function configError(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe('loadConfig', () => {
  it('has the documented defaults', () => {
    const c = loadConfig({});
    expect(c.PORT).toBe(3000);
    expect(c.HOST).toBe('0.0.0.0');
    expect(c.RATE_LIMIT_SCALE).toBe(1);
    expect(c.embeddedDatabase).toBe(true);
    expect(c.REDIS_URL).toBeUndefined();
    expect(c.REDIS_PREFIX).toBe('revs:');
    expect(c.ACCESS_TOKEN_TTL).toBe(900);
    expect(c.mediaDir).toBe(`${c.dataDir}/media`);
    expect(c.smsOutboxFile).toBe(`${c.dataDir}/sms-outbox.jsonl`);
    expect(c.publicBaseUrl).toBe('http://localhost:3000');
  });

  it('reads server mode and a public base URL', () => {
    const c = loadConfig({
      DATABASE_URL: 'postgres://u:p@db:5432/app',
      REDIS_URL: 'redis://cache:6379/2',
      PUBLIC_BASE_URL: 'https://video.example.com/',
      TRUST_PROXY: '1',
    });
    expect(c.embeddedDatabase).toBe(false);
    expect(c.publicBaseUrl).toBe('https://video.example.com');
    expect(c.TRUST_PROXY).toBe(true);
  });

  it('reads the realtime fan-out settings, with their defaults', () => {
    expect(loadConfig({})).toMatchObject({ REALTIME_NATIVE_PUBLISH: 'on', REALTIME_OUTBOX_MAX_EVENTS: 10_000 });
    expect(loadConfig({ REALTIME_NATIVE_PUBLISH: 'off', REALTIME_OUTBOX_MAX_EVENTS: '5' })).toMatchObject({
      REALTIME_NATIVE_PUBLISH: 'off',
      REALTIME_OUTBOX_MAX_EVENTS: 5,
    });
  });

  it('treats empty values as unset', () => {
    expect(loadConfig({ PORT: '', DATABASE_URL: '' }).PORT).toBe(3000);
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['RATE_LIMIT_SCALE', '0'],
    ['RATE_LIMIT_SCALE', '-1'],
    ['DATABASE_URL', 'mysql://x'],
    ['REDIS_URL', 'memcached://x'],
    ['JWT_SECRET', 'short'],
    ['LOG_LEVEL', 'loud'],
    ['TRUST_PROXY', 'maybe'],
    ['PUBLIC_BASE_URL', 'not a url'],
    ['REALTIME_NATIVE_PUBLISH', 'yes'],
    ['REALTIME_OUTBOX_MAX_EVENTS', '0'],
    ['REALTIME_OUTBOX_MAX_EVENTS', '2000000'],
    ['REALTIME_OUTBOX_MAX_EVENTS', 'many'],
  ])('refuses %s=%s with one line naming it', (name, value) => {
    const err = configError({ [name]: value });
    expect(err.message).toContain(name);
    expect(err.message).not.toContain('\n');
    expect(err.message.length).toBeLessThan(200);
  });

  it('refuses an administrator phone without a password', () => {
    expect(configError({ ADMIN_PHONE_NUMBER: '+84901234567' }).message).toContain('ADMIN_PASSWORD');
  });
});
