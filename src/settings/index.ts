// The public surface of src/settings/: what other domains and the doors use of it.
export { DEFAULT_SETTINGS, settingsPatchBody, settingsTreeSchema } from './schemas.js';
export type { SettingsService } from './service.js';
export type { SettingsRepository } from './settings-repository.js';
