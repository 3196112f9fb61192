/** How long a dropped connection may stay away and still recover (CONTRACT §18). */
export const RECOVERY_WINDOW_MS = 2 * 60_000;
