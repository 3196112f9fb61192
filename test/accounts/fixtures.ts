// Small images and request helpers shared by the account tests.
import sharp from 'sharp';
import * as bmp from 'bmp-ts';
import { SignJWT } from 'jose';
import { ApiClient, type ApiResponse } from '../helpers/api.js';

export const AUTH = '/auth/api/v1';

/** A solid-colour image of the given format and size. */
export async function makeImage(format: 'png' | 'jpeg' | 'webp', width: number, height: number): Promise<Buffer> {
  const image = sharp({ create: { width, height, channels: 3, background: { r: 200, g: 40, b: 90 } } });
  return image[format]().toBuffer();
}

/** A 24-bit BMP (bmp-ts takes pixels as A, B, G, R). */
export function makeBmp(width: number, height: number): Buffer {
  const data = Buffer.alloc(width * height * 4);
  for (let i = 0; i < width * height; i++) {
    data[i * 4 + 1] = 255; // blue
    data[i * 4 + 3] = 10; // a little red
  }
  return bmp.encode({ data, width, height, bitPP: 24 }).data;
}

export function avatarForm(bytes: Buffer, filename: string, type = 'application/octet-stream', field = 'avatar'): FormData {
  const form = new FormData();
  form.append(field, new Blob([new Uint8Array(bytes)], { type }), filename);
  return form;
}

export function putAvatar(api: ApiClient, form: FormData, headers: Record<string, string>): Promise<ApiResponse> {
  return api.request('PUT', `${AUTH}/user/avatar`, { rawBody: form, headers });
}

/** An access token signed with `secret` (the claims the service issues), expiring at `exp` (unix s). */
export function signAccessToken(secret: string, claims: { sub: string; sid: string; username: string }, exp: number, iat = exp - 900): Promise<string> {
  return new SignJWT({ sid: claims.sid, username: claims.username, typ: 'access' })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(claims.sub)
    .setIssuer('real-estate-video-service')
    .setAudience('api')
    .setIssuedAt(iat)
    .setExpirationTime(exp)
    .sign(new TextEncoder().encode(secret));
}
