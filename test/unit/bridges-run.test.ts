import { FreqtradeError } from '@trading-bot-api/feeds/bridges/freqtrade/api';
import type { PollSummary } from '@trading-bot-api/feeds/bridges/freqtrade/bridge';
import { runBridges } from '@trading-bot-api/feeds/bridges/run';
import { WriterError } from '@trading-bot-api/writer';

const mirrored = (state: string): PollSummary => ({ openTrades: 1, written: {}, refused: [], state });

/** A bridge whose polls answer as `answers` says, in turn (an error is thrown); the poll after the last stops the run. */
function scripted(answers: (PollSummary | Error)[], stop: AbortController) {
  const polls: number[] = [];
  return {
    polls,
    bridge: {
      account: 'b-1',
      poll: async () => {
        polls.push(Date.now());
        const answer = answers.shift();
        if (answer === undefined) stop.abort();
        if (answer instanceof Error) throw answer;
        return answer ?? mirrored('stopped');
      },
    },
  };
}

const unreachable = () => new FreqtradeError('unreachable', 'http://bot', 'ECONNREFUSED');

describe('runBridges', () => {
  it('says a failure once however often the poll fails, backs off doubling up to the cap, and says the recovery once', async () => {
    const stop = new AbortController();
    const { bridge, polls } = scripted(
      [mirrored('running'), unreachable(), unreachable(), unreachable(), unreachable(), mirrored('running'), mirrored('paused')],
      stop,
    );
    const lines: string[] = [];
    const ok = await runBridges([{ bridge, intervalMs: 5, source: 'freqtrade at http://bot' }], {
      report: (line) => lines.push(line),
      signal: stop.signal,
      maxBackoffMs: 30,
    });
    expect(ok).toBe(true);
    expect(lines).toEqual([
      'b-1: mirroring freqtrade at http://bot: 1 open trades, bot running',
      'b-1: cannot reach freqtrade at http://bot: ECONNREFUSED; trying again, backing off up to 0 s',
      'b-1: freqtrade at http://bot answers again',
      'b-1: bot paused',
      'stopped: wrote b-1',
    ]);
    // After each failure the pause doubles from twice the interval (10, 20 ms), then stays at the cap (30 ms).
    const waits = polls.slice(1, 6).map((at, i) => polls[i + 2] - at);
    expect(waits[0]).toBeGreaterThanOrEqual(9);
    expect(waits[1]).toBeGreaterThanOrEqual(19);
    expect(waits[2]).toBeGreaterThanOrEqual(29);
    expect(waits[3]).toBeGreaterThanOrEqual(29);
  });

  it('once: one poll each, the failure said, and false when any failed', async () => {
    const lines: string[] = [];
    const ok = await runBridges(
      [
        { bridge: scripted([unreachable()], new AbortController()).bridge, intervalMs: 5, source: 'a' },
        { bridge: { account: 'b-2', poll: async () => mirrored('stopped') }, intervalMs: 5, source: 'freqtrade b' },
      ],
      { once: true, report: (line) => lines.push(line) },
    );
    expect(ok).toBe(false);
    expect(lines).toEqual([
      'b-1: cannot reach freqtrade at http://bot: ECONNREFUSED',
      'b-2: mirroring freqtrade b: 1 open trades, bot stopped',
      'polled once: wrote b-2; could not mirror b-1',
    ]);
  });

  it('reports the bot unreachable as its state once per cause, again after it answered', async () => {
    const stop = new AbortController();
    const refused = () => new FreqtradeError('unauthorized', 'http://bot', '');
    const { bridge } = scripted([unreachable(), unreachable(), refused(), mirrored('running'), unreachable(), mirrored('running')], stop);
    const reported: string[] = [];
    const ok = await runBridges(
      [{ bridge: { ...bridge, reportFailure: async (error) => void reported.push(error.message) }, intervalMs: 1, source: 's' }],
      { report: () => {}, signal: stop.signal, maxBackoffMs: 10 },
    );
    expect(ok).toBe(true);
    expect(reported).toEqual([
      'cannot reach freqtrade at http://bot: ECONNREFUSED',
      'login refused by freqtrade at http://bot: check the username and password (HTTP 401)',
      'cannot reach freqtrade at http://bot: ECONNREFUSED',
    ]);
  });

  it('the database’s failures are tried again every interval, not after a back-off grown by the bot’s', async () => {
    const stop = new AbortController();
    const database = () => new WriterError('UNAVAILABLE', 'no answer');
    // Seven failures of the bot grow the back-off to 2 × 2^7 = 256 ms; the database's then wait the 2 ms interval.
    const { bridge, polls } = scripted([...Array.from({ length: 7 }, unreachable), database(), database(), mirrored('running')], stop);
    const lines: string[] = [];
    await runBridges([{ bridge, intervalMs: 2, source: 's' }], {
      report: (line) => lines.push(line),
      signal: stop.signal,
      maxBackoffMs: 10_000,
    });
    expect(lines).toContain('b-1: the database does not answer (no answer); trying again every 0 s');
    const waits = polls.slice(7, 9).map((at, i) => polls[i + 8] - at);
    expect(Math.max(...waits)).toBeLessThan(200);
  });

  it('a bug of its own ends the run, thrown as it is', async () => {
    const bug = new TypeError('x is not a function');
    const bridge = { account: 'b-3', poll: async (): Promise<PollSummary> => Promise.reject(bug) };
    await expect(runBridges([{ bridge, intervalMs: 5, source: 's' }], { report: () => {} })).rejects.toBe(bug);
  });
});
