// The bound on a range of days that /stats/by-day and per-item analytics share.
import { badRequest } from '../shared/errors.js';
import { daysBetween } from './days.js';
import { MAX_RANGE_DAYS } from './schemas.js';

/** 400 when end_date is before start_date or the range holds more than MAX_RANGE_DAYS days. */
export function checkDayRange(startDate: string, endDate: string, area: string): void {
  if (endDate < startDate) {
    throw badRequest(`${area}.error.invalid_range`, 'end_date must not be before start_date', { field: 'end_date', constraint: '>= start_date' });
  }
  if (daysBetween(startDate, endDate) + 1 > MAX_RANGE_DAYS) {
    throw badRequest(`${area}.error.range_too_long`, `At most ${MAX_RANGE_DAYS} days per request`, {
      field: 'end_date',
      constraint: `at most ${MAX_RANGE_DAYS} days after start_date`,
    });
  }
}
