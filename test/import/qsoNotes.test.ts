import t from 'tap';
import { QsoNotes } from '../../lib/import/qsoNotes.js';
import { boundMessages, MESSAGES_MAX_BYTES } from '../../lib/import/messages.js';

t.test('one line per kind: count, first five QSOs, the option spelt as the door takes it', async (t) => {
  const notes = new QsoNotes('K9CTS');
  for (let i = 0; i < 7; i++) notes.add('unmatched_kept_out', () => `K${i}AA 2024-03-01 10:0${i} 20m CW`);
  let described = 0;
  for (let i = 0; i < 1000; i++) notes.add('duplicate', () => `${++described}`);
  t.equal(described, 5, 'only the first few are described');
  t.same(notes.lines('cli'), [
    '7 records matched no QSO in the log and were not imported (first: K0AA 2024-03-01 10:00 20m CW; K1AA 2024-03-01 10:01 20m CW; ' +
      'K2AA 2024-03-01 10:02 20m CW; K3AA 2024-03-01 10:03 20m CW; K4AA 2024-03-01 10:04 20m CW; …); import with --insert-unmatched to store them',
    '1000 records skipped as duplicates: already in the log or earlier in this input (first: 1; 2; 3; 4; 5; …)',
  ]);
  t.match(notes.lines('http')[0], /; import with insert_unmatched=true to store them$/);
  t.same(notes.lines('v1', ['duplicate']), [notes.lines('v1')[0]], 'v1: no option to name; duplicates left to its own line');
  t.notMatch(notes.lines('v1')[0], /import with/);
});

t.test('foreign callsigns: both callsigns named, the first three distinct ones', async (t) => {
  const three = new QsoNotes('K9CTS');
  for (const call of ['KK7KNB', 'W1AW', 'KK7KNB', 'N0CALL']) three.add('foreign_callsign', () => call, call);
  t.match(three.lines('http')[0], /^4 records name station callsign KK7KNB, W1AW, N0CALL, not the location's K9CTS: imported all the same/);
  const four = new QsoNotes('K9CTS');
  for (const call of ['A1A', 'B1B', 'C1C', 'D1D']) four.add('foreign_callsign_refused', () => call, call);
  t.match(four.lines('http')[0], /^4 records name station callsign A1A, B1B, C1C, …, not the location's K9CTS: not imported \(first: A1A; B1B; C1C; D1D\)$/);
});

t.test('messages are cut to MESSAGES_MAX_BYTES, each line to 800 characters, the rest counted', async (t) => {
  const lines = Array.from({ length: 1000 }, (_, i) => `record ${i}: ${'é'.repeat(2000)}`);
  const kept = boundMessages(lines);
  t.ok(Buffer.byteLength(kept.join('\n')) <= MESSAGES_MAX_BYTES, 'within the budget');
  t.ok(kept.slice(0, -1).every((line) => line.length <= 801));
  t.match(kept.at(-1), new RegExp(`^\\.\\.\\. and ${1000 - (kept.length - 1)} more message lines$`));
  t.same(boundMessages(['a', 'b']), ['a', 'b'], 'short lists pass unchanged');
});
