// The public surface of src/secrets/: what other domains and the doors use of it.
export { getOrCreateServiceSecret } from './service-secrets.js';
export type { ServiceSecretRepository } from './service-secret-repository.js';
