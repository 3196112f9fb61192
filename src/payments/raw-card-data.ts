// Payment requests carry tokens, never raw card data (SPEC §5.9, CONTRACT §6). A body is refused
// when it holds a field named like a card number or security code, or any run of 13-19 digits
// (contiguous, or in the groupings cards are printed in) that passes the Luhn check, anywhere.
// The refusal names neither the value nor (for digit runs) where it was, and nothing here logs.
import { z } from 'zod';
import { AppError } from '../shared/errors.js';

// Compared after lower-casing and removing everything but letters and digits.
const CARD_FIELD_NAMES = new Set([
  'cardnumber',
  'cardno',
  'cardnum',
  'ccnumber',
  'ccnum',
  'creditcardnumber',
  'debitcardnumber',
  'pan',
  'primaryaccountnumber',
  'cvv',
  'cvv2',
  'cvc',
  'cvc2',
  'cid',
  'securitycode',
  'cardsecuritycode',
  'cardverificationvalue',
  'cardverificationcode',
]);
// Inside an object whose key names a card (`card`, `credit_card`, `payment_card`…), these are card data too.
const CARD_CHILD_NAMES = new Set(['number', 'no', 'num', 'pan', 'cvv', 'cvc', 'code']);
const MAX_DEPTH = 32;

const foldKey = (key: string) => key.toLowerCase().replace(/[^a-z0-9]/g, '');
const isCardContainer = (key: string) => /card$|^card|creditcard|debitcard/.test(foldKey(key)) && !/token/.test(foldKey(key));

function passesLuhn(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

// A whole run of digits with single spaces or dashes between them: never part of a longer run
// and not touching a letter (so the hex groups of a UUID never form one).
const DIGIT_RUN = /(?<![A-Za-z0-9]|\d[ -])\d(?:[ -]?\d)*(?![A-Za-z0-9]|[ -]\d)/g;

/** Groupings card numbers are written in: 4-4-4-4(-1..3), 4-4-4-1..4, 4-6-5 and 4-6-4. */
function looksLikeCardGrouping(groups: number[]): boolean {
  if (groups.length === 1) return true;
  if (groups.length === 3 && groups[0] === 4 && groups[1] === 6 && (groups[2] === 5 || groups[2] === 4)) return true;
  const last = groups[groups.length - 1];
  return groups.slice(0, -1).every((g) => g === 4) && last >= 1 && last <= 4;
}

/**
 * True when `text` contains a 13-19 digit run passing Luhn: contiguous, or grouped the way card
 * numbers are printed (`4242 4242 4242 4242`, `3782-822463-10005`).
 */
function containsCardNumber(text: string): boolean {
  for (const [run] of text.matchAll(DIGIT_RUN)) {
    const groups = run.split(/[ -]/);
    const digits = groups.join('');
    if (digits.length >= 13 && digits.length <= 19 && looksLikeCardGrouping(groups.map((g) => g.length)) && passesLuhn(digits)) {
      return true;
    }
  }
  return false;
}

function rawCardDataError(field?: string): AppError {
  return new AppError(
    400,
    'payment.error.raw_card_data',
    'Raw card data is not accepted: tokenise the card with the payment provider and send its token',
    field ? { field, constraint: 'no raw card data' } : { field: 'body', constraint: 'no raw card data' },
  );
}

function scan(value: unknown, path: string[], insideCard: boolean, depth: number): AppError | null {
  if (depth > MAX_DEPTH) return null;
  if (typeof value === 'string') return containsCardNumber(value) ? rawCardDataError() : null;
  if (typeof value === 'number') {
    // A card number sent as a JSON number (only integers can be one).
    return Number.isInteger(value) && containsCardNumber(BigInt(value).toString()) ? rawCardDataError() : null;
  }
  if (Array.isArray(value)) {
    for (const item of value) {
      const found = scan(item, path, insideCard, depth + 1);
      if (found) return found;
    }
    return null;
  }
  if (value && typeof value === 'object') {
    for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
      const folded = foldKey(key);
      const childPath = [...path, key];
      if (CARD_FIELD_NAMES.has(folded) || (insideCard && CARD_CHILD_NAMES.has(folded))) {
        return rawCardDataError(childPath.join('.'));
      }
      // A key may itself be a card number.
      if (containsCardNumber(key)) return rawCardDataError();
      const found = scan(child, childPath, isCardContainer(key), depth + 1);
      if (found) return found;
    }
  }
  return null;
}

/** Throws 400 `payment.error.raw_card_data` when the parsed JSON body holds raw card data. */
function assertNoRawCardData(body: unknown): void {
  const found = scan(body, [], false, 0);
  if (found) throw found;
}

/**
 * Wraps a body schema so raw card data is refused (400 `payment.error.raw_card_data`) before any
 * other validation can echo a field of it back.
 */
export function withoutRawCardData<T extends z.ZodType>(schema: T) {
  return z.preprocess((body) => {
    assertNoRawCardData(body);
    return body;
  }, schema);
}
