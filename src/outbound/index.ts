// The public surface of src/outbound/: what other domains and the doors use of it.
export type { OutboundGate } from './gate.js';
