// The public surface of src/twofactor/: what other domains and the doors use of it.
export { toggleTwoFactorBody } from './schemas.js';
export type { TwoFactorRepository } from './two-factor-repository.js';
