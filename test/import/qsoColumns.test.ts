import t from 'tap';
import { fieldInfo } from '../../lib/adif/fields.js';
import { QSO_COLUMNS } from '../../lib/db/qsoColumns.js';
import { testDatabase } from '../helpers/db.js';

const KIND_OF_TYPE: Readonly<Record<string, string>> = {
  text: 'text',
  integer: 'int',
  bigint: 'bigint',
  date: 'date',
  'timestamp without time zone': 'timestamp',
  'timestamp with time zone': 'timestamptz',
  jsonb: 'jsonb',
  xid8: 'xid8',
};

t.test('the column list is the qso table', async (t) => {
  const db = await testDatabase(t);
  const { rows } = await db.pool.query<{ column_name: string; data_type: string }>(
    `SELECT column_name, data_type FROM information_schema.columns
     WHERE table_schema = 'public' AND table_name = 'qso' ORDER BY ordinal_position`,
  );
  t.same(
    QSO_COLUMNS.map((column) => `${column.name} ${column.kind}`),
    rows.map((row) => `${row.column_name} ${KIND_OF_TYPE[row.data_type] ?? row.data_type}`),
  );
});

t.test('ADIF field columns fit their catalogue types', async (t) => {
  // Fields outside the ADIF 3.1.6 catalogue that the original product keeps in columns.
  const productFields = new Set(['clublog_qso_download_status', 'clublog_qso_download_date']);
  for (const column of QSO_COLUMNS.filter((c) => c.source === 'adif')) {
    const field = fieldInfo(column.name);
    if (field === undefined) {
      t.ok(productFields.has(column.name), `${column.name} is a known product field`);
      continue;
    }
    const expected = field.dataType === 'Date' ? 'date'
      : ['Integer', 'PositiveInteger'].includes(field.dataType) || column.name === 'dxcc' ? 'int'
        : 'text';
    t.equal(column.kind, expected, `${column.name} (${field.dataType})`);
  }
});
