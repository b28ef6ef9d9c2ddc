/** The table modules' item readers (packages/core/src/store/items.ts): every field read by its rule, in the order given. */
import { count, orNull, reader, text } from '@trading-bot-api/core/store/items';

interface Entry {
  id: string;
  name: string | null;
  total: number;
  tag: 'a' | 'b';
}
const toEntry = reader<Entry>({ id: (_, item) => item.pk as string, name: orNull, total: count, tag: text });

it('reads each field by its reader, in the order given whatever the stored order, and leaves other attributes out', () => {
  const entry = toEntry({ tag: 'b', total: 3, extra: 'x', name: 'n', pk: 'k' });
  expect(entry).toEqual({ id: 'k', name: 'n', total: 3, tag: 'b' });
  expect(Object.keys(entry)).toEqual(['id', 'name', 'total', 'tag']);
});

it('reads an absent optional attribute as null and an absent number as 0', () => {
  expect(toEntry({ pk: 'k', tag: 'a' })).toEqual({ id: 'k', name: null, total: 0, tag: 'a' });
  expect(toEntry({ pk: 'k', tag: 'a', total: '12' }).total).toBe(12);
});
