/**
 * Progress of a long import or export on a terminal or a log: on a TTY one line redrawn in place
 * (bar, rate, MB, ETA when the end is known); elsewhere a plain line every few seconds, so that
 * logs of long jobs in scripts show life without filling up.
 */

export interface ProgressSink {
  isTTY?: boolean;
  write(text: string): unknown;
}

/** Where a job stands: its records (QSOs) and bytes so far. */
export interface Progress {
  records: number;
  bytes: number;
}

/**
 * The job a reporter follows: an import reads records and bytes, its end known as the input's
 * size; an export writes QSOs and bytes, its end known as the number of QSOs. `total` is null
 * when the end is not known (stdin, a compressed file, an export since an id).
 */
export interface ProgressJob {
  kind: 'import' | 'export';
  total: number | null;
}

export interface ProgressReporter {
  update(progress: Progress): void;
  /** Ends the progress display (the final state, then a newline on a TTY). */
  finish(): void;
}

const TTY_INTERVAL_MS = 200;
const PLAIN_INTERVAL_MS = 5000;
const BAR_WIDTH = 24;
const MB = 1024 * 1024;

const WORDS = {
  import: { items: 'records', rate: 'rec/s', bytes: 'read' },
  export: { items: 'QSOs', rate: 'QSOs/s', bytes: 'written' },
} as const;

function clock(seconds: number): string {
  const whole = Math.max(0, Math.round(seconds));
  const minutes = Math.floor(whole / 60);
  return `${minutes}:${String(whole % 60).padStart(2, '0')}`;
}

export function createProgressReporter(sink: ProgressSink, { kind, total }: ProgressJob, now: () => number = Date.now): ProgressReporter {
  const started = now();
  const tty = sink.isTTY === true;
  const interval = tty ? TTY_INTERVAL_MS : PLAIN_INTERVAL_MS;
  const words = WORDS[kind];
  let shownAt = started;
  let latest: Progress = { records: 0, bytes: 0 };
  let drawn = false;

  const line = (): string => {
    const seconds = Math.max((now() - started) / 1000, 0.001);
    const rate = Math.round(latest.records / seconds);
    const mb = (latest.bytes / MB).toFixed(1);
    if (!tty) return `${kind}: ${latest.records} ${words.items}, ${mb} MB ${words.bytes}, ${rate} ${words.items}/s`;
    if (total === null || total === 0) return `${latest.records} ${words.items}  ${rate} ${words.rate}  ${mb} MB`;
    const done = kind === 'import' ? latest.bytes : latest.records;
    const share = Math.min(done / total, 1);
    const filled = Math.round(share * BAR_WIDTH);
    const eta = done > 0 ? ((total - Math.min(done, total)) * seconds) / done : 0;
    const bar = `[${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}] ${String(Math.floor(share * 100)).padStart(3)}%`;
    const amounts = kind === 'import'
      ? `${latest.records} records  ${rate} rec/s  ${mb}/${(total / MB).toFixed(1)} MB`
      : `${latest.records}/${total} QSOs  ${rate} QSOs/s  ${mb} MB`;
    return `${bar}  ${amounts}  ETA ${clock(eta)}`;
  };

  const show = (): void => {
    if (tty) sink.write(`\r\x1b[2K${line()}`);
    else sink.write(`${line()}\n`);
    drawn = true;
  };

  return {
    update(progress) {
      latest = progress;
      const time = now();
      if (time - shownAt < interval) return;
      shownAt = time;
      show();
    },
    finish() {
      if (tty) {
        show();
        sink.write('\n');
      } else if (drawn) show();
    },
  };
}
