// All "now" reads go through here so tests and jobs can reason about time in one place.
export const now = (): Date => new Date();
export const nowSeconds = (): number => Math.floor(Date.now() / 1000);
