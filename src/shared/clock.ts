// The process's reading of the current time, for rules evaluated in application code rather than
// in SQL. It is not a test seam: nothing substitutes it. Expiry that every node must agree on does
// not read it: sessions, refresh tokens and one-time codes are compared with the database's now()
// (src/auth/*-repository.ts), and access-token iat/exp come from jose's reading of the system clock.
export const now = (): Date => new Date();
