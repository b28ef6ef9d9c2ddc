/** CSV records as RFC 4180 has them: quoted cells with commas, doubled quotes and line breaks; the line each starts on. */
import { Readable } from 'node:stream';
import { csvRecords, formatOf } from '../../scripts/support/trade-file';

async function records(text: string, chunkSize = text.length) {
  // In small chunks too: a record or a quote cut between two reads of the file must come out the same.
  const chunks = Array.from({ length: Math.ceil(text.length / chunkSize) }, (_, i) => text.slice(i * chunkSize, (i + 1) * chunkSize));
  const found = [];
  for await (const record of csvRecords(Readable.from(chunks))) found.push(record);
  return found;
}

it('splits cells, following quotes across commas, doubled quotes and line breaks, with LF or CRLF', async () => {
  const expected = [
    { line: 1, cells: ['a', 'b', 'c'] },
    { line: 2, cells: ['1', '2,5', 'say "hi"'] },
    { line: 4, cells: ['multi\nline', '', 'x'] },
  ];
  for (const chunkSize of [1, 3, 1000]) {
    expect(await records('a,b,c\n1,"2,5","say ""hi"""\n\n"multi\nline",,x\n', chunkSize)).toEqual(expected);
    expect(await records('\ufeffa,b,c\r\n1,"2,5","say ""hi"""\r\n\r\n"multi\nline",,x', chunkSize)).toEqual(expected);
  }
});

it('reports a quoted cell that never closes, at the line it starts on', async () => {
  expect(await records('a,b\n1,"open\nstill open')).toEqual([
    { line: 1, cells: ['a', 'b'] },
    { line: 2, error: 'a quoted cell never closes; the lines after it were not read' },
  ]);
});

it('refuses text after a closing quote ("ab"c) at its line, after the records before it, and reads no further', async () => {
  const stray =
    'a quoted cell goes on after its closing quote (write a quote inside a quoted cell as ""); the lines after it were not read';
  expect(await records('a,b\n1,"ab"c\n')).toEqual([
    { line: 1, cells: ['a', 'b'] },
    { line: 2, error: stray },
  ]);
  for (const chunkSize of [2, 1000]) {
    expect(await records('a,b\n1,2\n\n3,"x"y\n4,5\n', chunkSize)).toEqual([
      { line: 1, cells: ['a', 'b'] },
      { line: 2, cells: ['1', '2'] },
      { line: 4, error: stray },
    ]);
  }
});

it('tells the format from the option or the extension', () => {
  expect(formatOf('trades.csv')).toBe('csv');
  expect(formatOf('trades.JSONL')).toBe('jsonl');
  expect(formatOf('trades.txt', 'csv')).toBe('csv');
  expect(formatOf('trades.txt')).toBeUndefined();
});
