import t, { type Test } from 'tap';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { SpillBuffer } from '../../lib/http/spillBuffer.js';
import { spilledPages } from '../helpers/spilledPages.js';
import { until } from '../helpers/worker.js';

/** 200 chunks of 100 bytes, each starting with its number: 20,000 bytes whose order shows. */
const numberedChunks = () => Array.from({ length: 200 }, (_, i) => Buffer.from(`${String(i).padStart(4, '0')}:${'x'.repeat(95)}`));

async function readAll(stream: AsyncIterable<unknown>): Promise<string> {
  const read: Buffer[] = [];
  for await (const chunk of stream) read.push(chunk as Buffer);
  return Buffer.concat(read).toString();
}

function scratchFolder(t: Test): string {
  const folder = mkdtempSync(join(tmpdir(), 'spill-'));
  t.teardown(() => rmSync(folder, { recursive: true, force: true }));
  return folder;
}

t.test('a spill buffer keeps the order, and its writer waits once the file holds its limit unread', async (t) => {
  const folder = scratchFolder(t);
  const chunks = numberedChunks();
  const spill = new SpillBuffer(1000, 5000, folder);
  let written = false;
  const writing = pipeline(Readable.from(chunks), spill).then(() => (written = true));
  await sleep(200);
  t.equal(written, false, 'the writer waits: 20,000 bytes do not fit 1,000 in memory and 5,000 on disk');
  const [size] = spilledPages(folder);
  t.ok(size! > 5000 && size! <= 5100, `the file holds its limit and one chunk more (${size} bytes)`);
  const read = await readAll(spill);
  await writing;
  t.ok(written, 'the writer finished once the reader took the file');
  t.equal(read, Buffer.concat(chunks).toString(), 'every byte, in order');
  t.equal(spill.waitedIn, 'disk', 'counted as waiting on disk');
  await until(() => spilledPages(folder).length === 0, "the file's removal");
  t.same(spilledPages(folder), [], 'the file is removed at the end');
});

t.test('where the disk fails, a spill buffer still delivers everything in order, holding its writer as a PassThrough would', async (t) => {
  const folder = scratchFolder(t);
  const notAFolder = join(folder, 'file');
  writeFileSync(notAFolder, '');
  const chunks = numberedChunks();
  const errors: Error[] = [];
  const spill = new SpillBuffer(1000, 5000, join(notAFolder, 'spool'), (error) => errors.push(error));
  let written = false;
  const writing = pipeline(Readable.from(chunks), spill).then(() => (written = true));
  await sleep(200);
  t.equal(written, false, 'the writer waits for the reader');
  t.equal(errors.length, 1, 'the disk error is reported once');
  const read = await readAll(spill);
  await writing;
  t.equal(read, Buffer.concat(chunks).toString(), 'every byte, in order');
  t.equal(spill.waitedIn, 'connection', 'counted as holding its connection, not as waiting on disk');
});

t.test('a spill buffer destroyed while its file opens leaves no file and reports no disk failure', async (t) => {
  const folder = scratchFolder(t);
  for (let round = 0; round < 20; round++) {
    const errors: Error[] = [];
    const spill = new SpillBuffer(10, 1000, folder, (error) => errors.push(error));
    spill.on('error', () => undefined);
    // The write ends once its file's opening has ended and the file is dealt with: waiting for
    // no file alone could pass before the file was even created.
    let writeEnded = false;
    spill.write(Buffer.alloc(100, 'z'), () => (writeEnded = true));
    if (round % 2 === 1) await new Promise((resolve) => setImmediate(resolve));
    spill.destroy();
    await until(() => writeEnded, `round ${round}: the write's end`);
    t.same(spilledPages(folder), [], `round ${round}: no file left`);
    t.same(errors, [], `round ${round}: no disk failure reported`);
  }
});
