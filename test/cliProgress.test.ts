import t from 'tap';
import { createProgressReporter, type Progress, type ProgressJob } from '../lib/cli/progressReporter.js';

const MB = 1024 * 1024;

function sink(isTTY: boolean) {
  const written: string[] = [];
  return { isTTY, written, write: (text: string) => written.push(text) };
}

t.test('terminal: a bar redrawn in place, at most five times a second, with rate, MB and ETA', async (t) => {
  let now = 0;
  const out = sink(true);
  const progress = createProgressReporter(out, { kind: 'import', total: 100 * MB }, () => now);
  now = 100;
  progress.update({ records: 1000, bytes: 10 * MB });
  t.same(out.written, [], 'too soon');
  now = 2000;
  progress.update({ records: 20_000, bytes: 25 * MB });
  t.same(out.written, ['\r\x1b[2K[######------------------]  25%  20000 records  10000 rec/s  25.0/100.0 MB  ETA 0:06']);
  now = 4000;
  progress.finish();
  t.equal(out.written.at(-2), '\r\x1b[2K[######------------------]  25%  20000 records  5000 rec/s  25.0/100.0 MB  ETA 0:12');
  t.equal(out.written.at(-1), '\n');
});

t.test('terminal without a known size (stdin): no bar, no ETA', async (t) => {
  let now = 0;
  const out = sink(true);
  const progress = createProgressReporter(out, { kind: 'import', total: null }, () => now);
  now = 1000;
  progress.update({ records: 500, bytes: MB / 2 });
  t.same(out.written, ['\r\x1b[2K500 records  500 rec/s  0.5 MB']);
});

t.test('not a terminal: a plain line every five seconds, none for a short import', async (t) => {
  let now = 0;
  const out = sink(false);
  const progress = createProgressReporter(out, { kind: 'import', total: 100 * MB }, () => now);
  now = 4000;
  progress.update({ records: 4000, bytes: MB });
  t.same(out.written, []);
  now = 5000;
  progress.update({ records: 5000, bytes: 2 * MB });
  t.same(out.written, ['import: 5000 records, 2.0 MB read, 1000 records/s\n']);
  now = 6000;
  progress.finish();
  t.equal(out.written.length, 2, 'the final state once more, since lines were shown');
  const quiet = sink(false);
  const short = createProgressReporter(quiet, { kind: 'import', total: 10 }, () => 0);
  short.update({ records: 1, bytes: 10 });
  short.finish();
  t.same(quiet.written, []);
});

/** What a new reporter writes for one update `ms` after it started. */
function shownAfter(isTTY: boolean, job: ProgressJob, ms: number, progress: Progress): string[] {
  const out = sink(isTTY);
  let now = 0;
  const reporter = createProgressReporter(out, job, () => now);
  now = ms;
  reporter.update(progress);
  return out.written;
}

t.test('an export: QSOs written against the QSOs to write, on a terminal and in a log', async (t) => {
  let now = 0;
  const out = sink(true);
  const progress = createProgressReporter(out, { kind: 'export', total: 800_000 }, () => now);
  now = 2000;
  progress.update({ records: 200_000, bytes: 70 * MB });
  t.same(out.written, ['\r\x1b[2K[######------------------]  25%  200000/800000 QSOs  100000 QSOs/s  70.0 MB  ETA 0:06']);
  now = 3000;
  progress.update({ records: 900_000, bytes: 315 * MB });
  t.equal(out.written.at(-1), '\r\x1b[2K[########################] 100%  900000/800000 QSOs  300000 QSOs/s  315.0 MB  ETA 0:00',
    'QSOs logged during the export take the bar no further than full');
  t.same(shownAfter(true, { kind: 'export', total: null }, 1000, { records: 1000, bytes: MB }), ['\r\x1b[2K1000 QSOs  1000 QSOs/s  1.0 MB'], 'since an id: no bar');
  t.same(shownAfter(false, { kind: 'export', total: 800_000 }, 5000, { records: 500_000, bytes: 175 * MB }), ['export: 500000 QSOs, 175.0 MB written, 100000 QSOs/s\n']);
});
