// Types of scripts/build.mjs for the TypeScript that imports it (tests, benches).
export const root: string;
export function sourceHash(): string;
export function isStale(outDir?: string): boolean;
export function build(outDir?: string): void;
