import t from 'tap';
import { CopyRows } from '../../lib/db/copyRows.js';

/**
 * COPY text rows out of pieces cut anywhere: a row cut by a piece's end, one spread over many
 * pieces, a piece ending on a newline; each row handed on once, whole, in order.
 */

const ROWS = ['1\tK1ABC\t\\N', '22\tDL\\tX\tlong ' + 'é'.repeat(40), '', '333\t\t', '4'];
const TEXT = Buffer.from(ROWS.map((row) => `${row}\n`).join(''));

function rowsOf(pieces: Buffer[]): string[] {
  const rows: string[] = [];
  const reader = new CopyRows((input, start, end) => rows.push(input.toString('utf8', start, end)));
  for (const piece of pieces) reader.write(piece);
  reader.end();
  return rows;
}

t.test('every cut into two pieces, and into pieces of every size from 1 byte', async (t) => {
  for (let cut = 0; cut <= TEXT.length; cut++) {
    t.same(rowsOf([TEXT.subarray(0, cut), TEXT.subarray(cut)]), ROWS, `cut at ${cut}`);
  }
  for (let size = 1; size <= TEXT.length; size++) {
    const pieces: Buffer[] = [];
    for (let at = 0; at < TEXT.length; at += size) pieces.push(TEXT.subarray(at, at + size));
    t.same(rowsOf(pieces), ROWS, `pieces of ${size} bytes`);
  }
});

t.test('a piece is read where it lies, not copied; output ending inside a row fails', async (t) => {
  const piece = Buffer.from('1\ta\n2\tb\n3\t');
  const inputs: Buffer[] = [];
  const reader = new CopyRows((input) => inputs.push(input));
  reader.write(piece);
  reader.write(Buffer.from('c\n4\td\n'));
  t.equal(inputs.length, 4);
  t.equal(inputs[0], piece, 'the first rows are read from the piece itself');
  t.equal(inputs[1], piece);
  t.equal(inputs[2]!.toString(), '3\tc\n', 'the row cut by the piece\'s end is joined with its end alone');
  t.notOk(inputs[3] === inputs[2], 'the rest of the next piece is read where it lies');
  reader.write(Buffer.from('5\te'));
  t.throws(() => reader.end(), /COPY output ended inside a row/);
});
