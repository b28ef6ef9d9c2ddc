/**
 * A strict parser of Prometheus's text exposition format 0.0.4, for the tests: every line must be a `# HELP`, a
 * `# TYPE` (before its family's samples, once), a sample of a declared family, or empty; label values escaped as the
 * format says; a value Go's ParseFloat reads. Anything else throws, naming the line.
 */

export interface ParsedSample {
  name: string;
  labels: Record<string, string>;
  /** The value as written (the exact decimal the API gave), and as Prometheus reads it. */
  text: string;
  value: number;
}

export interface ParsedFamily {
  name: string;
  help: string;
  type: string;
  samples: ParsedSample[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const VALUE = /^(?:[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?|[+-]?Inf|NaN)$/;

function labelsOf(text: string, line: number): Record<string, string> {
  const labels: Record<string, string> = {};
  let rest = text;
  while (rest.length) {
    const match = /^([^=]+)="((?:[^"\\\n]|\\[\\"n])*)"(,|$)/.exec(rest);
    if (!match || !LABEL.test(match[1])) throw new Error(`line ${line}: bad labels ${JSON.stringify(text)}`);
    if (match[1] in labels) throw new Error(`line ${line}: label ${match[1]} twice`);
    labels[match[1]] = match[2].replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    rest = rest.slice(match[0].length);
  }
  return labels;
}

/** The families of an exposition, in order; throws on the first line that breaks the format. */
export function parsePrometheusText(text: string): Map<string, ParsedFamily> {
  if (!text.endsWith('\n')) throw new Error('the exposition must end with a line feed');
  const families = new Map<string, ParsedFamily>();
  const lines = text.slice(0, -1).split('\n');
  lines.forEach((raw, index) => {
    const line = index + 1;
    if (raw === '') return;
    const comment = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(raw);
    if (comment) {
      const [, kind, name, rest] = comment;
      if (!NAME.test(name)) throw new Error(`line ${line}: bad metric name ${name}`);
      const family = families.get(name) ?? { name, help: '', type: 'untyped', samples: [] };
      if (kind === 'TYPE') {
        if (!['counter', 'gauge', 'histogram', 'summary', 'untyped'].includes(rest)) throw new Error(`line ${line}: bad type ${rest}`);
        if (family.samples.length || family.type !== 'untyped') throw new Error(`line ${line}: TYPE of ${name} after its samples or twice`);
        family.type = rest;
      } else family.help = rest.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
      families.set(name, family);
      return;
    }
    if (raw.startsWith('#')) return;
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: -?\d+)?$/.exec(raw);
    if (!sample) throw new Error(`line ${line}: not a sample: ${JSON.stringify(raw)}`);
    const [, name, labels = '', value] = sample;
    if (!VALUE.test(value)) throw new Error(`line ${line}: bad value ${value}`);
    const family = families.get(name);
    if (!family) throw new Error(`line ${line}: sample of ${name} before its HELP or TYPE`);
    family.samples.push({ name, labels: labelsOf(labels, line), text: value, value: Number(value) });
  });
  return families;
}

/** The one sample of `family` whose labels include `labels`; throws when there is not exactly one. */
export function sampleOf(families: Map<string, ParsedFamily>, family: string, labels: Record<string, string>): ParsedSample {
  const found = (families.get(family)?.samples ?? []).filter((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  if (found.length !== 1) throw new Error(`${found.length} samples of ${family} with ${JSON.stringify(labels)}`);
  return found[0];
}
