/**
 * Prometheus's text exposition format, version 0.0.4 (what every Prometheus scrapes): `# HELP` and `# TYPE` once per
 * metric family, then one sample per line, `name{label="value",…} value`. Pure: the metrics operation's figures in,
 * text out. Values are written as the API's exact decimal strings, which the format reads as floats (Go's
 * ParseFloat): Prometheus stores them as float64, so the exact figures stay the JSON answers'.
 */

/** The media type of the format, as a scrape's `Accept` asks for it. */
export const PROMETHEUS_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** One sample: its labels and its value (a decimal string or a whole number). */
interface Sample {
  labels: Record<string, string>;
  value: string | number;
}

/** One metric family: every sample of one name, under one HELP and TYPE (every figure here is a gauge). */
export interface Family {
  name: string;
  help: string;
  samples: readonly Sample[];
}

/** What a label value may hold that the format escapes. */
const ESCAPED = /[\\"\n]/;

/** A label value escaped as the format asks: backslash, double quote and line feed. */
export function escapeLabelValue(value: string): string {
  // A scrape writes a few hundred label values, hardly any of which holds one: one test each, not three replacements.
  if (!ESCAPED.test(value)) return value;
  return value.replaceAll('\\', '\\\\').replaceAll('"', '\\"').replaceAll('\n', '\\n');
}

function labelsOf(labels: Record<string, string>): string {
  const pairs = Object.entries(labels).map(([name, value]) => `${name}="${escapeLabelValue(value)}"`);
  return pairs.length ? `{${pairs.join(',')}}` : '';
}

/** The families as exposition text; a family without samples still says what it is (a scrape then shows the metric exists). */
export function renderExposition(families: readonly Family[]): string {
  // Samples that share their labels object (a bot's, in each of its families) have them written once.
  const written = new Map<Record<string, string>, string>();
  const labelsText = (labels: Record<string, string>) => written.get(labels) ?? written.set(labels, labelsOf(labels)).get(labels)!;
  return families
    .map((family) => {
      const help = family.help.replaceAll('\\', '\\\\').replaceAll('\n', '\\n');
      const lines = [`# HELP ${family.name} ${help}`, `# TYPE ${family.name} gauge`];
      for (const sample of family.samples) lines.push(`${family.name}${labelsText(sample.labels)} ${sample.value}`);
      return `${lines.join('\n')}\n`;
    })
    .join('');
}
