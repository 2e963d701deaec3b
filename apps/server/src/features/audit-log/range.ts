import { invalid } from '../../lib/errors.js';
import { INVALID_INSTANT, parseInstant } from '../../lib/time.js';

/** `from` inclusive, `to` exclusive, `from` before `to`; the same rule for list, search and export. */
export function parseRange(from: string | undefined, to: string | undefined) {
  const range: { from?: Date; to?: Date } = {};
  if (from !== undefined) {
    const parsed = parseInstant(from);
    if (!parsed) throw invalid('from', INVALID_INSTANT);
    range.from = parsed;
  }
  if (to !== undefined) {
    const parsed = parseInstant(to);
    if (!parsed) throw invalid('to', INVALID_INSTANT);
    range.to = parsed;
  }
  if (range.from && range.to && range.from >= range.to) throw invalid('from', 'must be before to');
  return range;
}
