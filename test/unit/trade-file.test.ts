/** CSV records as RFC 4180 has them: quoted cells with commas, doubled quotes and line breaks; the line each starts on. */
import { csvRecords, formatOf } from '../../scripts/support/trade-file';

async function records(text: string) {
  async function* lines() {
    for (const line of text.split('\n')) yield line;
  }
  const found = [];
  for await (const record of csvRecords(lines())) found.push(record);
  return found;
}

it('splits cells, following quotes across commas, doubled quotes and line breaks', async () => {
  expect(await records('a,b,c\n1,"2,5","say ""hi"""\n\n"multi\nline",,x\r')).toEqual([
    { line: 1, cells: ['a', 'b', 'c'] },
    { line: 2, cells: ['1', '2,5', 'say "hi"'] },
    { line: 4, cells: ['multi\nline', '', 'x'] },
  ]);
});

it('reports a quoted cell that never closes, at the line it starts on', async () => {
  expect(await records('a,b\n1,"open\nstill open')).toEqual([{ line: 1, cells: ['a', 'b'] }, { line: 2, error: 'a quoted cell never closes' }]);
});

it('tells the format from the option or the extension', () => {
  expect(formatOf('trades.csv')).toBe('csv');
  expect(formatOf('trades.JSONL')).toBe('jsonl');
  expect(formatOf('trades.txt', 'csv')).toBe('csv');
  expect(formatOf('trades.txt')).toBeUndefined();
});
