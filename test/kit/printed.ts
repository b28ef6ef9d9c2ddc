/**
 * What a piece of code prints while it runs: stdout and stderr both (Powertools writes warnings and errors to
 * stderr, the rest, metrics included, to stdout, as in Lambda), each JSON line parsed.
 */
export async function printedWhile<T>(work: () => Promise<T>): Promise<{ result: T; text: string; lines: Record<string, any>[] }> {
  const printed: string[] = [];
  const spies = [process.stdout, process.stderr].map((stream) =>
    jest.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
      printed.push(String(chunk));
      return true;
    }),
  );
  try {
    const result = await work();
    const text = printed.join('');
    return {
      result,
      text,
      lines: text
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line)),
    };
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
}
