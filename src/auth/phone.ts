// Phone numbers are stored in E.164 (`+84901234567`); every spelling of one number is one account.
import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';
import { badRequest } from '../shared/errors.js';

export function normalisePhoneNumber(input: string, defaultRegion: string, field = 'phone_number'): string {
  const parsed = parsePhoneNumberFromString(input.trim(), defaultRegion as CountryCode);
  if (!parsed || !parsed.isValid()) {
    throw badRequest('auth.error.invalid_phone_number', 'Phone number is not valid', {
      field,
      constraint: 'international phone number with country code',
    });
  }
  return parsed.number;
}

/** `+84901234567` → `+84*****4567`: enough for the user to recognise, not to harvest. */
export function maskPhoneNumber(e164: string): string {
  const countryCode = parsePhoneNumberFromString(e164)?.countryCallingCode ?? '';
  const head = `+${countryCode}`;
  const tail = e164.slice(-4);
  return head + '*'.repeat(Math.max(1, e164.length - head.length - tail.length)) + tail;
}
