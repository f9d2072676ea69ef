import t from 'tap';
import { TextSlabs, type TextPiece } from '../../lib/import/textSlabs.js';

const joined = (pieces: readonly TextPiece[]): string => Buffer.concat(pieces.map((piece) => piece.bytes)).toString('utf8');

t.test('text spread over slabs comes back byte for byte, no character split', async (t) => {
  const text = 'DL1ABC\tJörg\t🙂 grüße\\n\t日本\n'.repeat(7);
  for (const slabBytes of [4, 5, 7, 16, 64, 1024]) {
    const slabs = new TextSlabs(slabBytes);
    const pieces: TextPiece[] = [];
    const bytes = slabs.put(text, pieces);
    t.equal(bytes, Buffer.byteLength(text), `${slabBytes}-byte slabs: the UTF-8 length`);
    t.equal(joined(pieces), text, `${slabBytes}-byte slabs: the same text`);
    t.ok(pieces.every((piece) => piece.bytes.toString('utf8') === new TextDecoder('utf-8', { fatal: true }).decode(piece.bytes)), 'every piece is whole characters');
  }
});

t.test('bytes are copied, not kept', async (t) => {
  const slabs = new TextSlabs(8);
  const input = Buffer.from('0123456789abcdefghij');
  const pieces: TextPiece[] = [];
  t.equal(slabs.put(input, pieces), 20);
  input.fill(0x2a);
  t.equal(joined(pieces), '0123456789abcdefghij');
  t.same(pieces.map((piece) => piece.bytes.length), [8, 8, 4]);
});

t.test('a slab is reused only when every piece cut from it is released', async (t) => {
  const slabs = new TextSlabs(8);
  const first: TextPiece[] = [];
  slabs.put('aaaa', first);
  slabs.put('bbbb', first); // fills the first slab
  slabs.release(first[0]!);
  const second: TextPiece[] = [];
  slabs.put('cccccccc', second);
  t.not(second[0]!.bytes.buffer, first[0]!.bytes.buffer, 'one piece of the first slab is still held: a new slab');
  t.equal(joined(first), 'aaaabbbb', 'the held piece is intact');
  slabs.release(first[1]!);
  const third: TextPiece[] = [];
  slabs.put('dddddddd', third);
  t.equal(third[0]!.bytes.buffer, first[0]!.bytes.buffer, 'all released: the first slab is reused');
  t.equal(joined(third), 'dddddddd');
});

t.test('a character larger than a slab is refused, not looped on', async (t) => {
  t.throws(() => new TextSlabs(3).put('🙂', []), /does not fit into a 3-byte slab/);
});
