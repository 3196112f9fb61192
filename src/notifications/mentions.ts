// `@username` mentions in a comment: the names written, each once, at most MAX_MENTIONS.
const MENTION = /(?<![A-Za-z0-9._@-])@([A-Za-z0-9._-]{3,32})/g;

/** A comment names at most this many people; further names are not notified (no mass pinging). */
export const MAX_MENTIONS = 10;

export function mentionedUsernames(text: string): string[] {
  const names = new Map<string, string>();
  for (const match of text.matchAll(MENTION)) {
    // A trailing dot or dash is punctuation ("thanks @anna."), not part of the name.
    const name = match[1].replace(/[.-]+$/, '');
    if (name.length >= 3 && !names.has(name.toLowerCase())) names.set(name.toLowerCase(), name);
    if (names.size >= MAX_MENTIONS) break;
  }
  return [...names.values()];
}
