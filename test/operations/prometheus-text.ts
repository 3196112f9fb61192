// Reads samples out of a Prometheus text exposition, for the metrics tests.

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parseSamples(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const m = LINE.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (m[2] ?? '').matchAll(LABEL)) labels[key] = value.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    samples.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return samples;
}

/** Sum of the samples called `name` whose labels include `labels`; undefined when there is none. */
export function sampleSum(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const matching = parseSamples(text).filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  return matching.length ? matching.reduce((sum, s) => sum + s.value, 0) : undefined;
}
