// Response headers of CONTRACT §19's last bullet (issue 24 finding 9): a stored document (a PDF
// carrying a script) is served as a download under a sandboxing CSP, never inline on our origin,
// while pictures stay inline; HSTS is sent on answers that came over HTTPS, which only a trusted
// proxy can tell (TRUST_PROXY and X-Forwarded-Proto: https), and on no other.
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/fixture.js';
import { registerAndLogin } from '../helpers/api.js';
import { UPLOAD, form, makeImage, onServer } from '../media/media-helpers.js';

/** A one-page PDF whose open action runs JavaScript. */
const pdfWithScript = () =>
  Buffer.from(
    '%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R/OpenAction 4 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n' +
      '3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 200 200]>>endobj\n' +
      '4 0 obj<</S/JavaScript/JS(app.alert\\(document.cookie\\))>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n',
  );

describe('stored documents', () => {
  const booted = useTestServer();

  it('should serve an uploaded PDF as an attachment under a sandboxing CSP, and an image inline', async () => {
    const user = await registerAndLogin(booted.current);
    const doc = await user.api.request('POST', UPLOAD, {
      rawBody: form([
        { name: 'type', value: 'document' },
        { name: 'file', value: pdfWithScript(), filename: 'plan.pdf' },
      ]),
    });
    expect(doc.status, doc.text).toBe(201);
    for (const method of ['GET', 'HEAD']) {
      const res = await fetch(onServer(booted.url, doc.body.data.url), { method });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/pdf');
      expect(res.headers.get('content-disposition')).toMatch(/^attachment\b/);
      expect(res.headers.get('content-security-policy')).toMatch(/(^|;\s*)sandbox(;|$)/);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      await res.arrayBuffer();
    }
    const ranged = await fetch(onServer(booted.url, doc.body.data.url), { headers: { range: 'bytes=0-3' } });
    expect(ranged.status).toBe(206);
    expect(ranged.headers.get('content-disposition')).toMatch(/^attachment\b/);
    await ranged.arrayBuffer();

    const image = await user.api.request('POST', UPLOAD, {
      rawBody: form([
        { name: 'type', value: 'image' },
        { name: 'file', value: await makeImage('png'), filename: 'a.png' },
      ]),
    });
    expect(image.status, image.text).toBe(201);
    const shown = await fetch(onServer(booted.url, image.body.data.url));
    expect(shown.status).toBe(200);
    expect(shown.headers.get('content-disposition')).toBeNull();
    await shown.arrayBuffer();
  });
});

describe('HSTS behind a trusted proxy', () => {
  const booted = useTestServer({ TRUST_PROXY: '1' });

  it('should be sent only when the proxy says the request came over https', async () => {
    const over = async (proto: string | null) => {
      const res = await fetch(`${booted.url}/api/v1/content/not-a-uuid`, { headers: proto ? { 'x-forwarded-proto': proto } : {} });
      await res.arrayBuffer();
      return res.headers.get('strict-transport-security');
    };
    expect(await over('https')).toMatch(/^max-age=\d{7,}/);
    expect(await over('http, https')).toMatch(/^max-age=\d{7,}/);
    expect(await over('http')).toBeNull();
    expect(await over('https, http')).toBeNull();
    expect(await over(null)).toBeNull();
  });
});

describe('HSTS without a trusted proxy', () => {
  const booted = useTestServer();

  it('should not be sent, whatever X-Forwarded-Proto a client claims (the node speaks plain HTTP)', async () => {
    const res = await fetch(`${booted.url}/api/v1/content/not-a-uuid`, { headers: { 'x-forwarded-proto': 'https' } });
    await res.arrayBuffer();
    expect(res.status).toBe(400);
    expect(res.headers.get('strict-transport-security')).toBeNull();
  });
});
