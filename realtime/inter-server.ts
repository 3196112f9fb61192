// What nodes say to each other besides the adapter's own traffic (serverSideEmit): not pushes,
// so not derived from the namespace declarations.
export interface InterServerEvents {
  /** /feed: an item's counts changed on the sending node (realtime/ports.ts). */
  'feed:counts-changed': (contentId: string) => void;
  /** An every-node push the sending node heard, with whom the domain withheld it from (realtime/namespace.ts). */
  'push:elsewhere': (push: string, event: unknown, withheld: string[]) => void;
}
