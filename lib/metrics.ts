/**
 * A small Prometheus registry: counters and histograms with labels, rendered in the text
 * exposition format. Enough for this server's handful of series; no client library needed.
 */
type Labels = Record<string, string>;

const NEEDS_ESCAPE = /[\\"\n]/;

/**
 * A series' labels as the exposition format writes them, in name order. Runs for every request
 * (a counter and a histogram each): names compared by code unit, values escaped only when they
 * hold a character that needs it.
 */
function labelKey(labels: Labels): string {
  let key = '';
  for (const name of Object.keys(labels).sort()) {
    const value = labels[name]!;
    const text = NEEDS_ESCAPE.test(value) ? value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n') : value;
    key += `${key === '' ? '' : ','}${name}="${text}"`;
  }
  return key;
}

class Counter {
  private readonly values = new Map<string, number>();
  constructor(readonly name: string, readonly help: string) {}

  inc(labels: Labels = {}, by = 1): void {
    const key = labelKey(labels);
    this.values.set(key, (this.values.get(key) ?? 0) + by);
  }

  render(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} counter`];
    for (const [key, value] of this.values) lines.push(`${this.name}${key ? `{${key}}` : ''} ${value}`);
    return lines.join('\n');
  }
}

class Histogram {
  private readonly series = new Map<string, { counts: number[]; sum: number; count: number }>();
  constructor(readonly name: string, readonly help: string, readonly buckets: number[]) {}

  observe(labels: Labels, value: number): void {
    const key = labelKey(labels);
    let entry = this.series.get(key);
    if (!entry) {
      entry = { counts: this.buckets.map(() => 0), sum: 0, count: 0 };
      this.series.set(key, entry);
    }
    this.buckets.forEach((bound, i) => {
      if (value <= bound) entry.counts[i]! += 1;
    });
    entry.sum += value;
    entry.count += 1;
  }

  render(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`];
    for (const [key, entry] of this.series) {
      const prefix = key ? `${key},` : '';
      this.buckets.forEach((bound, i) => lines.push(`${this.name}_bucket{${prefix}le="${bound}"} ${entry.counts[i]}`));
      lines.push(`${this.name}_bucket{${prefix}le="+Inf"} ${entry.count}`);
      lines.push(`${this.name}_sum${key ? `{${key}}` : ''} ${entry.sum}`);
      lines.push(`${this.name}_count${key ? `{${key}}` : ''} ${entry.count}`);
    }
    return lines.join('\n');
  }
}

export class Metrics {
  readonly requests = new Counter('logbook_http_requests_total', 'HTTP requests by API, resource, method and status');
  readonly latency = new Histogram('logbook_http_request_duration_seconds', 'HTTP request latency by API and resource',
    [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]);
  readonly imports = new Counter('logbook_imports_total', 'ADIF/JSON imports by outcome');
  readonly importedRows = new Counter('logbook_imported_rows_total', 'QSO rows stored by imports');
  readonly rateLimited = new Counter('logbook_rate_limited_total', 'Requests refused by the rate limiter, by bucket');
  readonly smallInsertStatements = new Counter('logbook_small_insert_statements_total',
    'Statements storing single creates and small v1 documents: batch (callers together) or alone (a caller again after its batch failed)');
  readonly smallInsertRows = new Counter('logbook_small_insert_rows_total', 'Rows handed to those statements, by the same kind');
  readonly pagesReadAhead = new Counter('logbook_page_answers_total',
    'List and change-feed pages by where they waited for their client: memory, disk (beyond page_read_ahead_bytes), or connection (no read-ahead left, or its file could not be written: the page held its database connection)');

  render(): string {
    return [this.requests, this.latency, this.imports, this.importedRows, this.rateLimited, this.smallInsertStatements, this.smallInsertRows, this.pagesReadAhead].map((m) => m.render()).join('\n') + '\n';
  }
}
