// How listing text becomes search terms (CONTRACT §23), for the listing index: folded words
// (lower case, no Vietnamese diacritics, `đ` = `d`: foldForSearch), Korean words also as their
// syllable pairs (so any 2+ consecutive syllables of a word find it), and which query terms may
// match a word's beginning (prefix) or forgive a typo. See docs/search.md.
import { foldForSearch } from '../values.js';
import { LIMITS } from '../schemas.js';

/** A word: letters and digits. Everything else (spaces, punctuation, `_`, `%`, `#`) separates words. */
const WORD = /[\p{L}\p{N}]+/gu;
const HANGUL_WORD = /^\p{Script=Hangul}+$/u;

/** The folded words of a text, in order. */
export function wordsOf(text: string): string[] {
  return foldForSearch(text).match(WORD) ?? [];
}

export const isHangul = (term: string): boolean => HANGUL_WORD.test(term);

/** Each pair of consecutive syllables of a Korean word. */
function syllablePairs(word: string): string[] {
  const syllables = [...word];
  const pairs: string[] = [];
  for (let i = 0; i + 1 < syllables.length; i++) pairs.push(syllables[i] + syllables[i + 1]);
  return pairs;
}

/** The terms a stored text is indexed under: every word, and a Korean word's syllable pairs too. */
export function indexTermsOf(text: string): string[] {
  const terms: string[] = [];
  for (const word of wordsOf(text)) {
    terms.push(word);
    if (isHangul(word) && [...word].length > 2) terms.push(...syllablePairs(word));
  }
  return terms;
}

/**
 * The terms of a search, every one of which must match (AND): its words (at most
 * LIMITS.searchTerms), a Korean word of 2+ syllables as its syllable pairs. Empty when the text
 * holds no word at all (`%`, `--`): such a search matches nothing.
 */
export function queryTermsOf(search: string): string[] {
  const words = [...new Set(wordsOf(search))].slice(0, LIMITS.searchTerms);
  const terms = words.flatMap((word) => (isHangul(word) && [...word].length >= 2 ? syllablePairs(word) : [word]));
  return [...new Set(terms)];
}

const length = (term: string): number => [...term].length;

/** A query term may match the beginning of a longer word (`vinho` → `vinhomes`): 2+ letters, or a Korean syllable. */
export const prefixAllowed = (term: string): boolean => length(term) >= 2 || isHangul(term);

/** A query term of 5+ letters forgives one typo (CONTRACT §23); a Korean pair is matched as typed. */
export const typoAllowed = (term: string): boolean => length(term) >= 5 && !isHangul(term);

/**
 * Whether `a` and `b` are at most one edit apart: a letter changed, added or dropped, or two
 * neighbours swapped (optimal string alignment distance ≤ 1).
 */
export function withinOneEdit(a: string, b: string): boolean {
  if (a === b) return true;
  const x = [...a];
  const y = [...b];
  if (Math.abs(x.length - y.length) > 1) return false;
  let i = 0;
  while (i < x.length && i < y.length && x[i] === y[i]) i++;
  const rest = (p: string[], from: number) => p.slice(from).join('');
  if (x.length === y.length) {
    if (rest(x, i + 1) === rest(y, i + 1)) return true; // one changed
    return i + 1 < x.length && x[i] === y[i + 1] && x[i + 1] === y[i] && rest(x, i + 2) === rest(y, i + 2); // two swapped
  }
  return x.length > y.length ? rest(x, i + 1) === rest(y, i) : rest(x, i) === rest(y, i + 1); // one dropped or added
}

/** Whether the stored word `word` answers the query term `term` (as typed, its beginning, or one typo away). */
export function termMatches(term: string, word: string): boolean {
  if (word === term) return true;
  if (prefixAllowed(term) && word.startsWith(term)) return true;
  return typoAllowed(term) && withinOneEdit(term, word);
}
