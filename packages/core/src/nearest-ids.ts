import { distance } from 'fastest-levenshtein';
import { compareIds } from './ids';

/**
 * The ids nearest one that names no account (a 404's `suggestions`), pure: among `known`, one that differs only in
 * case first (ids are case-sensitive), then those at most a third of its length and at most 2 edits away (a
 * transposition, `ft-mian` for `ft-main`, is 2), nearest first, ties by id; at most `most`.
 */
export function nearestIds(asked: string, known: Iterable<string>, most = 3): string[] {
  const lower = asked.toLowerCase();
  const reach = Math.min(2, Math.floor(asked.length / 3));
  const near: [number, string][] = [];
  for (const id of known) {
    const away = distance(lower, id.toLowerCase());
    if (id !== asked && away <= reach) near.push([away, id]);
  }
  return near
    .sort(([a, x], [b, y]) => a - b || compareIds(x, y))
    .slice(0, most)
    .map(([, id]) => id);
}
