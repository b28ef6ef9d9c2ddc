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

/** Units Prometheus wants in their base form (seconds, bytes, ratios), and the abbreviations it wants spelled out. */
const NON_BASE_UNITS: Record<string, string> = {
  milliseconds: 'seconds',
  microseconds: 'seconds',
  nanoseconds: 'seconds',
  minutes: 'seconds',
  hours: 'seconds',
  days: 'seconds',
  kilobytes: 'bytes',
  megabytes: 'bytes',
  gigabytes: 'bytes',
  bits: 'bytes',
  percent: 'ratio',
  percentage: 'ratio',
};
const ABBREVIATIONS = new Set(['s', 'ms', 'us', 'ns', 'sec', 'secs', 'min', 'mins', 'h', 'hr', 'hrs', 'b', 'kb', 'mb', 'gb', 'pct']);

/**
 * What `promtool check metrics` says of an exposition (its lint rules, client_golang's promlint, written down here
 * since promtool is not installed): a family without help; a counter without `_total`, or another type with it;
 * `_count`, `_sum`, `_bucket` or `_info` outside the types that own them; a type named in the name; a colon; camelCase
 * names or labels; non-base or abbreviated units. Each problem as promtool words it, after the metric's name.
 */
export function promlintProblems(families: ReadonlyMap<string, ParsedFamily>): string[] {
  const problems: string[] = [];
  for (const { name, help, type, samples } of families.values()) {
    const say = (problem: string) => problems.push(`${name}: ${problem}`);
    const tokens = name.split('_');
    if (!help) say('no help text');
    if (type === 'counter' && !name.endsWith('_total')) say('counter metrics should have "_total" suffix');
    if (type !== 'counter' && name.endsWith('_total')) say('non-counter metrics should not have "_total" suffix');
    if (type !== 'histogram' && type !== 'summary' && /_(count|sum)$/.test(name))
      say('non-histogram and non-summary metrics should not have "_count" or "_sum" suffix');
    if (type !== 'histogram' && name.endsWith('_bucket')) say('non-histogram metrics should not have "_bucket" suffix');
    if (type !== 'histogram' && samples.some((sample) => 'le' in sample.labels)) say('non-histogram metrics should not have "le" label');
    if (type !== 'summary' && samples.some((sample) => 'quantile' in sample.labels))
      say('non-summary metrics should not have "quantile" label');
    for (const kind of ['counter', 'gauge', 'histogram', 'summary', 'untyped'])
      if (tokens.includes(kind)) say(`metric name should not include type '${kind}'`);
    if (name.includes(':')) say("metric names should not contain ':'");
    if (/[A-Z]/.test(name)) say("metric names should be written in 'snake_case' not 'camelCase'");
    for (const label of new Set(samples.flatMap((sample) => Object.keys(sample.labels))))
      if (/[A-Z]/.test(label)) say("label names should be written in 'snake_case' not 'camelCase'");
    for (const token of tokens) {
      if (NON_BASE_UNITS[token] && NON_BASE_UNITS[token] !== token) say(`use base unit "${NON_BASE_UNITS[token]}" instead of "${token}"`);
      if (ABBREVIATIONS.has(token)) say('metric names should not contain abbreviated units');
    }
  }
  return problems;
}
