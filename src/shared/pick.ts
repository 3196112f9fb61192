// What a door is given of the services: only the members it declares it uses, so a route module
// or a job cannot reach further than its declaration, even by a cast.

/** A copy of `from` holding only `keys`. */
export function pick<T extends object, K extends keyof T>(from: T, keys: readonly K[]): Pick<T, K> {
  const picked = {} as Pick<T, K>;
  for (const key of keys) picked[key] = from[key];
  return picked;
}
