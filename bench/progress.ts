/**
 * Progress of a long step on stderr: a redrawn bar when stderr is a terminal, otherwise a plain line every 10 %
 * (or every 15 s), so CI logs and the smoke test's captured output stay short.
 */
export interface Progress {
  update(done: number): void;
  finish(): void;
}

const WIDTH = 30;

const perSecond = (rate: number) => (rate >= 10 ? Math.round(rate).toLocaleString('en-US') : rate.toFixed(1));

function duration(seconds: number): string {
  if (!Number.isFinite(seconds)) return '?';
  return seconds >= 90 ? `${Math.floor(seconds / 60)}m${String(Math.round(seconds % 60)).padStart(2, '0')}s` : `${Math.round(seconds)}s`;
}

export function progress(label: string, total: number, unit = 'items'): Progress {
  const tty = Boolean(process.stderr.isTTY);
  const started = Date.now();
  let done = 0;
  let lastDraw = 0;
  let nextTenth = 1;
  let lastLine = started;

  const line = () => {
    const seconds = (Date.now() - started) / 1000;
    const rate = done / Math.max(seconds, 0.001);
    const eta = (total - done) / rate;
    const percent = total ? Math.floor((done / total) * 100) : 100;
    return { seconds, rate, eta, percent };
  };

  return {
    update(value) {
      done = value;
      const now = Date.now();
      const { rate, eta, percent } = line();
      if (tty) {
        if (now - lastDraw < 100 && done < total) return;
        lastDraw = now;
        const filled = Math.round((WIDTH * percent) / 100);
        process.stderr.write(
          `\r${label} [${'#'.repeat(filled)}${'.'.repeat(WIDTH - filled)}] ${String(percent).padStart(3)}% ` +
            `${done.toLocaleString('en-US')}/${total.toLocaleString('en-US')} ${perSecond(rate)}/s ETA ${duration(eta)}   `,
        );
      } else if (percent >= nextTenth * 10 || now - lastLine > 15_000) {
        while (percent >= nextTenth * 10) nextTenth++;
        lastLine = now;
        process.stderr.write(
          `${label}: ${percent}% (${done.toLocaleString('en-US')}/${total.toLocaleString('en-US')}, ${perSecond(rate)}/s)\n`,
        );
      }
    },
    finish() {
      const { seconds, rate } = line();
      if (tty) process.stderr.write('\n');
      process.stderr.write(`${label}: ${done.toLocaleString('en-US')} ${unit} in ${seconds.toFixed(1)} s (${perSecond(rate)}/s)\n`);
    },
  };
}

/** A plain status line on stderr (stdout carries only the results table). */
export function note(message: string): void {
  process.stderr.write(`${message}\n`);
}
