// The `general` limit counts in fixed windows aligned to the clock when Redis shares the counts
// (http/local-first-limit.ts: a minute starts on the minute). A test that counts its requests up to
// the limit and expects the next one refused would see the count start again if a minute began
// halfway through; so it starts its count early enough in a minute for the whole count to fit.
// (In-memory windows start at a key's first request, so this costs nothing there but the wait.)

const WINDOW_MS = 60_000;

/** Waits, when less than `needMs` is left of the clock's current minute, for the next minute. */
export async function roomInTheWindow(needMs = 15_000): Promise<void> {
  const left = WINDOW_MS - (Date.now() % WINDOW_MS);
  if (left < needMs) await new Promise((r) => setTimeout(r, left + 100));
}
