/**
 * Import progress on a terminal or a log: on a TTY one line redrawn in place (bar, records/s,
 * MB read, ETA when the size is known); elsewhere a plain line every few seconds, so that logs
 * of long imports in scripts show life without filling up.
 */

export interface ProgressSink {
  isTTY?: boolean;
  write(text: string): unknown;
}

export interface ProgressReporter {
  update(progress: { records: number; bytes: number }): void;
  /** Ends the progress display (the final state, then a newline on a TTY). */
  finish(): void;
}

const TTY_INTERVAL_MS = 200;
const PLAIN_INTERVAL_MS = 5000;
const BAR_WIDTH = 24;
const MB = 1024 * 1024;

function clock(seconds: number): string {
  const whole = Math.max(0, Math.round(seconds));
  const minutes = Math.floor(whole / 60);
  return `${minutes}:${String(whole % 60).padStart(2, '0')}`;
}

export function createProgressReporter(sink: ProgressSink, totalBytes: number | null, now: () => number = Date.now): ProgressReporter {
  const started = now();
  const tty = sink.isTTY === true;
  const interval = tty ? TTY_INTERVAL_MS : PLAIN_INTERVAL_MS;
  let shownAt = started;
  let latest = { records: 0, bytes: 0 };
  let drawn = false;

  const line = (): string => {
    const seconds = Math.max((now() - started) / 1000, 0.001);
    const rate = Math.round(latest.records / seconds);
    const mb = (latest.bytes / MB).toFixed(1);
    if (!tty) return `import: ${latest.records} records, ${mb} MB read, ${rate} records/s`;
    if (totalBytes === null || totalBytes === 0) return `${latest.records} records  ${rate} rec/s  ${mb} MB`;
    const share = Math.min(latest.bytes / totalBytes, 1);
    const filled = Math.round(share * BAR_WIDTH);
    const eta = latest.bytes > 0 ? ((totalBytes - latest.bytes) * seconds) / latest.bytes : 0;
    const bar = `[${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}] ${String(Math.floor(share * 100)).padStart(3)}%`;
    return `${bar}  ${latest.records} records  ${rate} rec/s  ${mb}/${(totalBytes / MB).toFixed(1)} MB  ETA ${clock(eta)}`;
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
