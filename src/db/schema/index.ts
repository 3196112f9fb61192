// Every table, one file per migration/domain. Each domain adds its own file and one export line.
export * from './accounts.js';
export * from './content.js';
export * from './media.js';
export * from './sns.js';
export * from './publishing.js';
export * from './campaigns.js';
export * from './settings.js';
