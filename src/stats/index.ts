// The public surface of src/stats/: what other domains and the doors use of it.
export { statsByDayData, statsByDayQuery } from './schemas.js';
export type { StatsRepository } from './stats-repository.js';
export { addDays, dayOf, isCalendarDate, midnightIso } from './days.js';
export { checkDayRange } from './range.js';
