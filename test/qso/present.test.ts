import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { createOperator } from '../helpers/fixtures.js';
import { insertQsos, type QsoRow as InsertedRow } from '../helpers/qsoRows.js';
import { to as copyTo } from 'pg-copy-streams';
import { presentQso, qsoSelectList, type QsoRow } from '../../lib/qso/present.js';
import { QsoJsonFromCopy } from '../../lib/qso/copyJson.js';
import { ChangePageFromCopy } from '../../lib/qso/changeFeed.js';
import { ByteOutput } from '../../lib/export/byteOutput.js';
import { parseListQuery } from '../../lib/http/v2/resources/qso/listParams.js';
import type { Principal } from '../../lib/http/v2/principal.js';
import type { RequestContext } from '../../lib/http/v2/resource.js';

/** An empty QSO and one holding every kind of value: numbers, dates, and texts COPY and JSON both escape. */
const oddRows = (stationId: number): InsertedRow[] => [
  { station_id: stationId, call: 'K1BAR', time_on: '2024-06-01 12:34:56' },
  {
    station_id: stationId, call: 'K1FUL', time_on: '2024-06-01 23:59:59', time_off: '2024-06-02 00:01:00', band_rx: '2m',
    submode: 'FT4', freq: 10_368_100_000, freq_rx: 144_300_000, cqz: 5, ituz: 8, srx: 0, stx: 1234, dxcc: 291,
    name: 'quote " backslash \\ slash /', comment: 'line\nbreak\ttab\rreturn\u0001\u001f', notes: 'emoji 📻 and \u2028\u2029 and ü',
    qth: '', qsl_via: '<script>', srx_string: '001', lotw_qslrdate: '2024-07-01', qslsdate: '1999-12-31', country: 'UNITED STATES OF AMERICA',
    sat_name: '\\N', sat_mode: '\\', sig: 'vt\u000bbs\bff\fdel\u007f', sig_info: '\\n not a newline', rst_sent: '"', gridsquare: '\\\t',
  },
];

/** The rows as `COPY (SELECT prefix, qsoSelectList …) TO STDOUT` writes them, in one piece. */
async function copyText(db: import('pg').Pool, prefix: string, ids: number[]): Promise<Buffer> {
  const client = await db.connect();
  try {
    await client.query("SET datestyle = 'ISO'");
    const chunks: Buffer[] = [];
    const literal = `ARRAY[${ids.map(Number).join(',')}]::bigint[]`;
    const copy = client.query(copyTo(`COPY (SELECT ${prefix}${qsoSelectList('q')} FROM qso q WHERE q.id = ANY(${literal}) ORDER BY q.id) TO STDOUT`));
    for await (const chunk of copy as AsyncIterable<Buffer>) chunks.push(chunk);
    return Buffer.concat(chunks);
  } finally {
    client.release();
  }
}

/** The object without its unset fields: what a client of omit_empty=true rebuilds. */
function setFields(qso: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(qso).filter(([, value]) => value !== '' && value !== null));
}

/**
 * Lists and the change feed write each QSO's JSON straight from COPY text (QsoJsonFromCopy);
 * GET /qso/{id}, PATCH and create build the object with presentQso. Both must give the same text
 * whatever the values hold (numbers, dates, COPY's escapes, quotes, control characters, a text
 * that reads `\N`), and with omit_empty the same object less its unset fields.
 */
t.test('QsoJsonFromCopy writes exactly JSON.stringify(presentQso(row)), from COPY text', async (t) => {
  const server = await startTestServer(t);
  const db = server.db.pool;
  const op = await createOperator(db, { callsign: 'DL1CPY' });
  const ids = await insertQsos(db, oddRows(op.stationId));
  const objects = await db.query<QsoRow>(`SELECT ${qsoSelectList('q')} FROM qso q WHERE q.id = ANY($1) ORDER BY q.id`, [ids]);
  t.equal(objects.rows.length, 2);
  const text = await copyText(db, '', ids);
  for (const setOnly of [false, true]) {
    const writer = new QsoJsonFromCopy(setOnly);
    let start = 0;
    for (const [index, row] of objects.rows.entries()) {
      const end = text.indexOf(0x0a, start);
      const out = new ByteOutput(16);
      t.equal(writer.write(text, start, end, out), end, 'reads the row to its end');
      const json = out.take().toString('utf8');
      if (setOnly) t.same(JSON.parse(json), setFields(presentQso(row)), `row ${index}, set fields only`);
      else t.equal(json, JSON.stringify(presentQso(row)), `row ${index}`);
      start = end + 1;
    }
  }
  const list = await server.request(`/api/v2/qso?station_id=${op.stationId}`, { token: op.token });
  const single = await server.request(`/api/v2/qso/${ids[1]}`, { token: op.token });
  t.same(list.body.data.find((qso: { id: number }) => qso.id === ids[1]), single.body.data, 'the list shows what GET /qso/{id} shows');
  const full = single.body.data;
  t.equal(full.comment, 'line\nbreak\ttab\rreturn\u0001\u001f');
  t.equal(full.sat_name, '\\N', 'a text reading \\N is no NULL');
  t.equal(full.qth, '', 'unset text is ""');
  t.equal(full.freq, 10_368_100_000);
  t.equal(list.body.data.find((qso: { id: number }) => qso.id === ids[0]).cqz, null, 'unset number is null');
});

/**
 * The page's rows arrive in pieces cut anywhere: each cut gives the same changes, the row after
 * perPage only sets has_more, and a deletion seen twice is told once.
 */
t.test('a small list page (rows of a named statement) and a long one (COPY) write the same text', async (t) => {
  const server = await startTestServer(t);
  const db = server.db.pool;
  const op = await createOperator(db, { callsign: 'DL1ROW' });
  await insertQsos(db, [0, 1, 2].flatMap((n) => oddRows(op.stationId).map((row) => ({ ...row, call: `${row.call}${n}` }))));
  const dataOf = (text: string) => text.slice(0, text.indexOf('],"meta":') + 1);
  // per_page 100 is read as rows, 101 by COPY (list.ts); the same six QSOs either way, twice
  // each, so that the second time runs the statement its connection has prepared.
  for (let round = 0; round < 2; round++) {
    const byRows = await server.request(`/api/v2/qso?station_id=${op.stationId}&per_page=100`, { token: op.token });
    const byCopy = await server.request(`/api/v2/qso?station_id=${op.stationId}&per_page=101`, { token: op.token });
    t.equal(byRows.status, 200);
    t.equal(byRows.body.data.length, 6);
    t.equal(byRows.body.meta.total, 6);
    t.equal(dataOf(byRows.text), dataOf(byCopy.text), `round ${round}: the same data, byte for byte`);
  }
  const empty = await server.request(`/api/v2/qso?station_id=${op.stationId}&per_page=100&page=2`, { token: op.token });
  t.same([empty.body.data, empty.body.meta.total], [[], 6], 'a page past the end is empty');
  const missing = await server.request(`/api/v2/qso?station_id=${op.stationId}&callsign=NOBODY&per_page=100`, { token: op.token });
  t.same([missing.body.data, missing.body.meta.total], [[], 0], 'a page of nothing is empty');
});

t.test('pages read as rows: small ones whose every branch reads an index led by its filters', async (t) => {
  // A test double: parseListQuery reads the request's query and its principal's locations.
  const principal = { userId: 1, club: null, stationIds: [1, 2] } as unknown as Principal;
  const reads = (query: string) => parseListQuery({ query: Object.fromEntries(new URLSearchParams(query)), principal } as unknown as RequestContext).withCut(null).plan.read === 'kept-rows';
  for (const query of ['', 'per_page=100', 'band=20m', 'mode=FT4', 'qsl_filter=lotw,qsl', 'qso_since=2020-01-01&band=SAT', 'since_id=5&mode=CW', 'page=500', 'limit=100']) {
    t.ok(reads(query), `rows: ${query || 'page 1'}`);
  }
  for (const query of ['per_page=101', 'callsign=K1ABC', 'band=20m&mode=CW', 'mode=FT4&qsl_filter=lotw', 'band=2m&qsl_filter=qsl']) {
    t.notOk(reads(query), `COPY: ${query}`);
  }
});

t.test('ChangePageFromCopy: the same page however the COPY output is cut', async (t) => {
  const server = await startTestServer(t);
  const db = server.db.pool;
  const op = await createOperator(db, { callsign: 'DL1CUT' });
  const ids = await insertQsos(db, [
    { station_id: op.stationId, call: 'K1AAA', time_on: '2024-06-01 12:34:56', comment: 'tab\there' },
    { station_id: op.stationId, call: 'K1BBB', time_on: '2024-06-01 12:35:56', name: 'ü 📻' },
    { station_id: op.stationId, call: 'K1CCC', time_on: '2024-06-01 12:36:56' },
  ]);
  const upserts = await copyText(db, `1, 7, q.id, q.station_id, `, ids);
  const deletion = Buffer.from(`0\t8\t${ids[0]}\t${op.stationId}\t${Array(qsoColumnCount(upserts)).fill('\\N').join('\t')}\n`);
  // Two upserts, the same deletion twice (told once), then one more than perPage.
  const rows = Buffer.concat([upserts.subarray(0, upserts.indexOf(0x0a, upserts.indexOf(0x0a) + 1) + 1), deletion, deletion, upserts.subarray(upserts.indexOf(0x0a, upserts.indexOf(0x0a) + 1) + 1)]);
  const readAll = (pieces: Buffer[]) => {
    const page = new ChangePageFromCopy(4, false);
    const out = pieces.map((piece) => page.read(piece)?.toString('utf8') ?? '').join('');
    page.end();
    return { json: JSON.parse(`[${out}]`) as Array<{ change: string; id: number; station_id: number; qso: Record<string, unknown> | null }>, last: page.last, hasMore: page.hasMore };
  };
  const whole = readAll([rows]);
  t.same(whole.json.map((change) => [change.change, change.id]), [['upsert', ids[0]], ['upsert', ids[1]], ['delete', ids[0]]]);
  t.equal(whole.json[0]!.qso!.comment, 'tab\there');
  t.equal(whole.json[1]!.qso!.name, 'ü 📻');
  t.equal(whole.json[2]!.station_id, op.stationId);
  t.equal(whole.json[2]!.qso, null);
  t.same(whole.last, { kind: 0, txid: '8', id: ids[0] }, 'the last row read, the repeated deletion included');
  t.equal(whole.hasMore, true, 'the fifth row says there is more');
  for (let cut = 1; cut < rows.length; cut++) {
    const pieces = readAll([rows.subarray(0, cut), rows.subarray(cut)]);
    if (JSON.stringify(pieces) !== JSON.stringify(whole)) {
      t.fail(`cut at byte ${cut} gives another page`);
      return;
    }
  }
  t.pass(`the same page for each of the ${rows.length - 1} cuts`);
  const cutInRow = new ChangePageFromCopy(4, false);
  cutInRow.read(rows.subarray(0, 10));
  t.throws(() => cutInRow.end(), /ended inside a row/);
});

/** Columns per row of COPY text (tabs in the first row, plus one), less the four change columns. */
function qsoColumnCount(text: Buffer): number {
  const row = text.subarray(0, text.indexOf(0x0a));
  return row.toString('latin1').split('\t').length - 4;
}
