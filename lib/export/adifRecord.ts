import { formatMhz } from '../adif/frequency.js';
import { formatAdifRecord } from '../adif/writer.js';
import { QSO_COLUMNS, type QsoColumn } from '../db/qsoColumns.js';

/**
 * A `qso` row (joined with its station location) as one ADIF record. The SELECT list is built
 * here together with the code reading its rows, so positions cannot drift apart: every value
 * arrives as text, dates already as YYYYMMDD and times as HHMMSS.
 *
 * Field order follows the original product's export: its list of QSO fields, the QSL dates,
 * FREQ / FREQ_RX, the QSO's date and times, the station-profile fields; then every other stored
 * field (the rest of the columns, then `extra` by name), so that import → export → import loses nothing.
 * A station-profile field the QSO carries itself is written as the QSO has it; the location
 * fills only what the QSO lacks.
 */

/** The original product's QSO field order (AdifHelper::getAdifLine). */
const LEADING_FIELDS = `ADDRESS AGE A_INDEX ANT_AZ ANT_EL ANT_PATH ARRL_SECT AWARD_GRANTED AWARD_SUBMITTED BAND BAND_RX
  BIOGRAPHY CALL CHECK CLASS CLUBLOG_QSO_UPLOAD_STATUS CNTY COMMENT CONT CONTACTED_OP CONTEST_ID COUNTRY CQZ CREDIT_GRANTED
  CREDIT_SUBMITTED DARC_DOK DISTANCE DXCC EMAIL EQ_CALL EQSL_QSL_RCVD EQSL_QSL_SENT EQSL_STATUS FISTS FISTS_CC FORCE_INIT
  GRIDSQUARE HEADING IOTA ITUZ K_INDEX LAT LON LOTW_QSL_RCVD LOTW_QSL_SENT LOTW_STATUS MAX_BURSTS MODE MS_SHOWER NAME NOTES
  NR_BURSTS NR_PINGS OPERATOR OWNER_CALLSIGN PFX PRECEDENCE PROP_MODE PUBLIC_KEY HRDLOG_QSO_UPLOAD_STATUS
  QRZCOM_QSO_UPLOAD_STATUS QSLMSG QSL_RCVD QSL_RCVD_VIA QSL_SENT QSL_SENT_VIA QSL_VIA QSO_COMPLETE QSO_RANDOM QTH REGION RIG
  RST_RCVD RST_SENT RX_PWR SAT_MODE SAT_NAME SFI SILENT_KEY SKCC SOTA_REF WWFF_REF POTA_REF SRX SRX_STRING STATE STX STX_STRING
  SUBMODE SWL TEN_TEN TX_PWR UKSMG USACA_COUNTIES VUCC_GRIDS WEB CNTY_ALT MY_CNTY_ALT MY_DARC_DOK MORSE_KEY_INFO MORSE_KEY_TYPE
  QSLMSG_RCVD EQSL_QSLRDATE EQSL_QSLSDATE LOTW_QSLRDATE LOTW_QSLSDATE QSLRDATE QSLSDATE CLUBLOG_QSO_UPLOAD_DATE
  HRDLOG_QSO_UPLOAD_DATE QRZCOM_QSO_UPLOAD_DATE DCL_QSLRDATE DCL_QSLSDATE`;

/** Written from the QSO's columns in this order after the leading fields. */
const QSO_TIME_FIELDS = ['FREQ', 'FREQ_RX', 'QSO_DATE', 'TIME_ON', 'QSO_DATE_OFF', 'TIME_OFF'] as const;

/** The station location's values, selected after the QSO columns. */
const STATION_SELECT = [
  's.callsign',
  's.city',
  's.country',
  's.dxcc::text',
  's.gridsquare',
  's.iota',
  's.sota',
  's.wwff',
  's.pota',
  's.cq::text',
  's.itu::text',
  's.state',
  's.cnty',
  's.sig',
  's.sig_info',
] as const;

type StationValue = (typeof STATION_SELECT)[number];

/** DXCC entities whose counties are written "state,county" (USA, Alaska, Hawaii). */
const STATE_QUALIFIED_COUNTY_DXCC = new Set(['6', '110', '291']);

type Fallback = (row: RowValues) => string;

/**
 * The station-profile fields in the original's order, each with how the location fills it when
 * the QSO has no value. The location's grid is MY_VUCC_GRIDS when it lists several, and stands in
 * only for a QSO that has no grid of its own in either field.
 */
const PROFILE_FIELDS: ReadonlyArray<readonly [string, Fallback | null]> = [
  ['STATION_CALLSIGN', (r) => r.station('s.callsign')],
  ['MY_CITY', (r) => r.station('s.city')],
  ['MY_COUNTRY', (r) => r.station('s.country')],
  ['MY_DXCC', (r) => r.station('s.dxcc::text')],
  ['MY_GRIDSQUARE', (r) => (locationHasGridList(r) || r.qso('MY_VUCC_GRIDS') !== '' ? '' : r.station('s.gridsquare'))],
  ['MY_VUCC_GRIDS', (r) => (locationHasGridList(r) && r.qso('MY_GRIDSQUARE') === '' ? r.station('s.gridsquare') : '')],
  ['MY_IOTA', (r) => r.station('s.iota')],
  ['MY_SOTA_REF', (r) => r.station('s.sota')],
  ['MY_WWFF_REF', (r) => r.station('s.wwff')],
  ['MY_POTA_REF', (r) => r.station('s.pota')],
  ['MY_CQ_ZONE', (r) => r.station('s.cq::text')],
  ['MY_ITU_ZONE', (r) => r.station('s.itu::text')],
  ['MY_STATE', (r) => r.station('s.state')],
  ['MY_CNTY', (r) => countyOf(r)],
  ['MY_SIG', (r) => r.station('s.sig')],
  ['MY_SIG_INFO', (r) => r.station('s.sig_info')],
  ['SIG', null],
  ['SIG_INFO', null],
];

function locationHasGridList(row: RowValues): boolean {
  return row.station('s.gridsquare').includes(',');
}

function countyOf(row: RowValues): string {
  const county = row.station('s.cnty');
  const state = row.station('s.state');
  if (county === '' || state === '' || !STATE_QUALIFIED_COUNTY_DXCC.has(row.station('s.dxcc::text'))) return county;
  return `${state},${county}`;
}

/** Where a field's value comes from in a row. */
type Source =
  | { readonly kind: 'column'; readonly index: number }
  | { readonly kind: 'frequency'; readonly index: number }
  | { readonly kind: 'extra'; readonly key: string };

interface PlannedField {
  readonly name: string;
  readonly source: Source;
  /** The location's value when the QSO has none; null for fields the location does not fill. */
  readonly fallback: Fallback | null;
}

/** The SELECT list (qso aliased q, stations s) and where each value lands. */
const selectList: string[] = ['q.id::text'];

function select(expression: string): number {
  selectList.push(expression);
  return selectList.length - 1;
}

function columnExpression(column: QsoColumn): string {
  switch (column.kind) {
    case 'date':
      return `to_char(q.${column.name}, 'YYYYMMDD')`;
    case 'int':
    case 'bigint':
      return `q.${column.name}::text`;
    default:
      return `q.${column.name}`;
  }
}

/** ADIF name → source, for every QSO column that holds one field. */
const columnSources = new Map<string, Source>();
for (const column of QSO_COLUMNS) {
  if (column.source === 'row' || column.kind === 'timestamp') continue;
  const index = select(columnExpression(column));
  const name = column.name.toUpperCase();
  columnSources.set(name, column.kind === 'bigint' ? { kind: 'frequency', index } : { kind: 'column', index });
}
columnSources.set('QSO_DATE', { kind: 'column', index: select(`to_char(q.time_on, 'YYYYMMDD')`) });
columnSources.set('TIME_ON', { kind: 'column', index: select(`to_char(q.time_on, 'HH24MISS')`) });
columnSources.set('QSO_DATE_OFF', { kind: 'column', index: select(`to_char(q.time_off, 'YYYYMMDD')`) });
columnSources.set('TIME_OFF', { kind: 'column', index: select(`to_char(q.time_off, 'HH24MISS')`) });
const EXTRA_INDEX = select('q.extra::text');
const STATION_INDEX: ReadonlyMap<StationValue, number> = new Map(STATION_SELECT.map((expression) => [expression, select(expression)]));

/** SELECT list of the export query, in row order. */
export const EXPORT_SELECT_LIST = selectList.join(', ');

function planned(name: string, fallback: PlannedField['fallback'] = null): PlannedField {
  return { name, source: columnSources.get(name) ?? { kind: 'extra', key: name.toLowerCase() }, fallback };
}

const PLAN: readonly PlannedField[] = [
  ...LEADING_FIELDS.trim().split(/\s+/).map((name) => planned(name)),
  ...QSO_TIME_FIELDS.map((name) => planned(name)),
  ...PROFILE_FIELDS.map(([name, fallback]) => planned(name, fallback)),
];

const PLANNED_NAMES = new Set(PLAN.map((field) => field.name));

/** Columns not placed by the plan, in table order, after it. */
const TRAILING_COLUMNS: readonly PlannedField[] = [...columnSources.keys()]
  .filter((name) => !PLANNED_NAMES.has(name))
  .map((name) => planned(name));

const PLANNED_BY_NAME: ReadonlyMap<string, PlannedField> = new Map(PLAN.map((field) => [field.name, field]));

/** `extra` keys the plan already wrote (a value whose column could not take it lives there). */
const WRITTEN_EXTRA_KEYS = new Set([...PLAN, ...TRAILING_COLUMNS].map((field) => field.name.toLowerCase()));

export type ExportRow = ReadonlyArray<string | null>;

/** The QSO's id. */
export function rowId(row: ExportRow): number {
  return Number(row[0]);
}

/** One row read by field: the QSO's own values (column or `extra`) and the location's. */
class RowValues {
  readonly extra: Record<string, string> | null;

  constructor(private readonly row: ExportRow) {
    const extraText = row[EXTRA_INDEX];
    this.extra = extraText ? (JSON.parse(extraText) as Record<string, string>) : null;
  }

  /** The QSO's value of a planned field; '' when it has none. */
  value(field: PlannedField): string {
    const { source } = field;
    if (source.kind === 'extra') return this.extra?.[source.key] ?? '';
    const value = this.row[source.index];
    // A value its column could not take was kept in extra under the field's name.
    if (value === null || value === undefined) return this.extra?.[field.name.toLowerCase()] ?? '';
    return source.kind === 'frequency' ? formatMhz(Number(value)) : value;
  }

  qso(name: string): string {
    return this.value(PLANNED_BY_NAME.get(name)!);
  }

  station(expression: StationValue): string {
    return this.row[STATION_INDEX.get(expression)!] ?? '';
  }
}

/** The row as `<NAME:len>value … <EOR>\n`. */
export function formatExportRow(row: ExportRow): string {
  const values = new RowValues(row);
  const fields: Array<[string, string]> = [];
  for (const field of PLAN) {
    let value = values.value(field);
    if (value === '' && field.fallback !== null) value = field.fallback(values);
    if (value !== '') fields.push([field.name, value]);
  }
  for (const field of TRAILING_COLUMNS) {
    const value = values.value(field);
    if (value !== '') fields.push([field.name, value]);
  }
  const extra = values.extra;
  if (extra !== null) {
    // jsonb keeps keys ordered by length; the rest is written in name order instead.
    const rest = Object.keys(extra).filter((key) => !WRITTEN_EXTRA_KEYS.has(key)).sort();
    for (const key of rest) fields.push([key.toUpperCase(), extra[key]!]);
  }
  return formatAdifRecord(fields);
}
