import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { createOperator } from '../helpers/fixtures.js';
import { insertQsos } from '../helpers/qsoRows.js';
import { presentQso, qsoSelectList, renderQsoJson, type QsoRow } from '../../lib/qso/present.js';

/**
 * Lists and the change feed write a QSO's JSON with renderQsoJson from rows read in array
 * mode; GET /qso/{id}, PATCH and create build the object with presentQso. Both must give the
 * same text for every kind of value a row can hold.
 */
t.test('renderQsoJson writes exactly JSON.stringify(presentQso(row))', async (t) => {
  const server = await startTestServer(t);
  const db = server.db.pool;
  const op = await createOperator(db, { callsign: 'DL1REN' });
  const ids = await insertQsos(db, [
    { station_id: op.stationId, call: 'K1BAR', time_on: '2024-06-01 12:34:56' },
    {
      station_id: op.stationId, call: 'K1FUL', time_on: '2024-06-01 23:59:59', time_off: '2024-06-02 00:01:00', band_rx: '2m',
      submode: 'FT4', freq: 10_368_100_000, freq_rx: 144_300_000, cqz: 5, ituz: 8, srx: 0, stx: 1234, dxcc: 291,
      name: 'quote " backslash \\ slash /', comment: 'line\nbreak\ttab\rreturn\u0001\u001f', notes: 'emoji 📻 and \u2028\u2029 and ü',
      qth: '', qsl_via: '<script>', srx_string: '001', lotw_qslrdate: '2024-07-01', qslsdate: '1999-12-31', country: 'UNITED STATES OF AMERICA',
    },
  ]);
  const objects = await db.query<QsoRow>(`SELECT ${qsoSelectList('q')} FROM qso q WHERE q.id = ANY($1) ORDER BY q.id`, [ids]);
  const arrays = await db.query<unknown[]>({ text: `SELECT ${qsoSelectList('q')} FROM qso q WHERE q.id = ANY($1) ORDER BY q.id`, values: [ids], rowMode: 'array' });
  t.equal(arrays.rows.length, 2);
  for (const [index, row] of arrays.rows.entries()) {
    const expected = JSON.stringify(presentQso(objects.rows[index]!));
    t.equal(renderQsoJson(row), expected, `row ${index}`);
    t.equal(renderQsoJson(['x', 'y', ...row], 2), expected, `row ${index} read from an offset`);
  }
  const full = JSON.parse(renderQsoJson(arrays.rows[1]!));
  t.equal(full.comment, 'line\nbreak\ttab\rreturn\u0001\u001f');
  t.equal(full.qth, '', 'unset text is ""');
  t.equal(full.freq, 10_368_100_000);
  t.equal(JSON.parse(renderQsoJson(arrays.rows[0]!)).cqz, null, 'unset number is null');

  const list = await server.request(`/api/v2/qso?station_id=${op.stationId}`, { token: op.token });
  const single = await server.request(`/api/v2/qso/${ids[1]}`, { token: op.token });
  t.same(list.body.data.find((qso: { id: number }) => qso.id === ids[1]), single.body.data, 'the list shows what GET /qso/{id} shows');
});
