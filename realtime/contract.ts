// The Socket.IO event contract as the AsyncAPI document (realtime/asyncapi.ts), the typed client
// (clients/typescript) and the tests read it: per namespace, every event a client emits (its
// payload schema, the very zod schema its handler validates with, and the shape of `data` in its
// ack) and every event the server emits (its payload schema). It is a view of the namespace
// declarations (realtime/namespaces/*.ts), not a second declaration: an event is added there.
import type { z } from 'zod';
import { namespaces } from './namespaces/index.js';
import { commonPushes, type DeclaredNamespace, type Push } from './namespace.js';

export interface ClientEventContract {
  summary: string;
  /** What the handler validates the payload with (an invalid one is answered `validation.error.*`). */
  payload: z.ZodType;
  /** The schema of `data` in a successful ack; null when the ack is `{ok: true}` alone. */
  ack: z.ZodType | null;
}

export interface ServerEventContract {
  summary: string;
  payload: z.ZodType;
}

export interface NamespaceContract {
  description: string;
  client: Record<string, ClientEventContract>;
  server: Record<string, ServerEventContract>;
}

function contractOf(declared: DeclaredNamespace): NamespaceContract {
  const client = Object.fromEntries(Object.entries(declared.events).map(([name, { summary, payload, ack }]) => [name, { summary, payload, ack }]));
  const pushes: [string, Push][] = [...Object.entries(commonPushes), ...Object.entries(declared.pushes)];
  const server = Object.fromEntries(pushes.map(([name, { summary, payload }]) => [name, { summary, payload }]));
  return { description: declared.description, client, server };
}

/** Every declared namespace's contract, by namespace, in the order of realtime/namespaces/index.ts. */
export const realtimeContract: Record<string, NamespaceContract> = Object.fromEntries(namespaces.map((declared) => [declared.name, contractOf(declared)]));
