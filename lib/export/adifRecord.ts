import { formatMhz } from '../adif/frequency.js';
import { formatAdifRecord } from '../adif/writer.js';
import { QSO_COLUMNS, type QsoColumnKind } from '../db/qsoColumns.js';
import { COPY_NULL, copyFieldValue, unescapeCopyValue } from '../import/copyText.js';

/**
 * A `qso` row (joined with its station location) as one ADIF record. The SELECT list is built
 * here together with the code reading its rows, so positions cannot drift apart. Columns are
 * selected as they are and read as PostgreSQL's COPY text: casts or to_char in SQL cost the
 * server more than the slicing here, and this runs a million times.
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

/** The station location's columns, selected after the QSO's. */
const STATION_COLUMNS = ['callsign', 'city', 'country', 'dxcc', 'gridsquare', 'iota', 'sota', 'wwff', 'pota', 'cq', 'itu', 'state', 'cnty', 'sig', 'sig_info'] as const;

type StationColumn = (typeof STATION_COLUMNS)[number];

/** DXCC entities whose counties are written "state,county" (USA, Alaska, Hawaii). */
const STATE_QUALIFIED_COUNTY_DXCC = new Set(['6', '110', '291']);

/**
 * A row of COPY output split at tabs, values still escaped: only the few present values are
 * worth unescaping, and a hundred mostly NULL columns are read per row.
 */
export type ExportRow = readonly string[];

type Extra = Readonly<Record<string, string>> | null;

/** The SELECT list (qso aliased q, stations s) and each expression's position in a row. */
const selectList: string[] = [];

function select(expression: string): number {
  selectList.push(expression);
  return selectList.length - 1;
}

const ID_INDEX = select('q.id');
const FIELD_COLUMNS = QSO_COLUMNS.filter((column) => column.source !== 'row');
const COLUMN_INDEX: ReadonlyMap<string, number> = new Map(FIELD_COLUMNS.map((column) => [column.name, select(`q.${column.name}`)]));
const EXTRA_INDEX = select('q.extra');
const STATION_INDEX = new Map(STATION_COLUMNS.map((column) => [column, select(`s.${column}`)])) as ReadonlyMap<StationColumn, number>;

/** SELECT list of the export query, in row order. */
export const EXPORT_SELECT_LIST = selectList.join(', ');

function station(row: ExportRow, column: StationColumn): string {
  return copyFieldValue(row[STATION_INDEX.get(column)!]!) ?? '';
}

/** How a stored value becomes the ADIF value. */
const enum Convert {
  Text,
  /** 'YYYY-MM-DD' (date, or the date of a timestamp) → 'YYYYMMDD'. */
  Day,
  /** 'YYYY-MM-DD HH:MM:SS' → 'HHMMSS'. */
  Clock,
  /** Hz → MHz. */
  Mhz,
}

type Fallback = (row: ExportRow, extra: Extra) => string;

/** One field of the record: its column (-1: none), its key in `extra`, and what fills it when the QSO has no value. */
interface Step {
  readonly name: string;
  readonly index: number;
  readonly convert: Convert;
  readonly key: string;
  readonly fallback: Fallback | null;
}

function convert(how: Convert, value: string): string {
  switch (how) {
    case Convert.Day:
      return value.slice(0, 4) + value.slice(5, 7) + value.slice(8, 10);
    case Convert.Clock:
      return value.slice(11, 13) + value.slice(14, 16) + value.slice(17, 19);
    case Convert.Mhz:
      return formatMhz(Number(value));
    default:
      return value;
  }
}

/** The QSO's own value of a field; a value its column could not take was kept in `extra` under the field's name. */
function qsoValue(step: Step, row: ExportRow, extra: Extra): string {
  if (step.index >= 0) {
    const field = row[step.index]!;
    if (field !== COPY_NULL) return convert(step.convert, unescapeCopyValue(field));
  }
  return extra === null ? '' : (extra[step.key] ?? '');
}

function columnKind(name: string): QsoColumnKind | undefined {
  return FIELD_COLUMNS.find((column) => column.name === name)?.kind;
}

function step(name: string, fallback: Fallback | null = null): Step {
  const times: Record<string, [string, Convert]> = {
    QSO_DATE: ['time_on', Convert.Day],
    TIME_ON: ['time_on', Convert.Clock],
    QSO_DATE_OFF: ['time_off', Convert.Day],
    TIME_OFF: ['time_off', Convert.Clock],
  };
  const key = name.toLowerCase();
  const [column, how] = times[name] ?? [key, { date: Convert.Day, bigint: Convert.Mhz }[columnKind(key) as string] ?? Convert.Text];
  return { name, index: COLUMN_INDEX.get(column) ?? -1, convert: how, key, fallback };
}

function locationHasGridList(row: ExportRow): boolean {
  return station(row, 'gridsquare').includes(',');
}

function countyOf(row: ExportRow): string {
  const county = station(row, 'cnty');
  const state = station(row, 'state');
  if (county === '' || state === '' || !STATE_QUALIFIED_COUNTY_DXCC.has(station(row, 'dxcc'))) return county;
  return `${state},${county}`;
}

/**
 * The station-profile fields in the original's order, each with how the location fills it when
 * the QSO has no value. The location's grid is MY_VUCC_GRIDS when it lists several, and stands in
 * only for a QSO that has no grid of its own in either field.
 */
const MY_GRIDSQUARE = step('MY_GRIDSQUARE');
const MY_VUCC_GRIDS = step('MY_VUCC_GRIDS');
const PROFILE_STEPS: readonly Step[] = [
  step('STATION_CALLSIGN', (row) => station(row, 'callsign')),
  step('MY_CITY', (row) => station(row, 'city')),
  step('MY_COUNTRY', (row) => station(row, 'country')),
  step('MY_DXCC', (row) => station(row, 'dxcc')),
  step('MY_GRIDSQUARE', (row, extra) => (locationHasGridList(row) || qsoValue(MY_VUCC_GRIDS, row, extra) !== '' ? '' : station(row, 'gridsquare'))),
  step('MY_VUCC_GRIDS', (row, extra) => (locationHasGridList(row) && qsoValue(MY_GRIDSQUARE, row, extra) === '' ? station(row, 'gridsquare') : '')),
  step('MY_IOTA', (row) => station(row, 'iota')),
  step('MY_SOTA_REF', (row) => station(row, 'sota')),
  step('MY_WWFF_REF', (row) => station(row, 'wwff')),
  step('MY_POTA_REF', (row) => station(row, 'pota')),
  step('MY_CQ_ZONE', (row) => station(row, 'cq')),
  step('MY_ITU_ZONE', (row) => station(row, 'itu')),
  step('MY_STATE', (row) => station(row, 'state')),
  step('MY_CNTY', countyOf),
  step('MY_SIG', (row) => station(row, 'sig')),
  step('MY_SIG_INFO', (row) => station(row, 'sig_info')),
  step('SIG'),
  step('SIG_INFO'),
];

const PLANNED: readonly Step[] = [
  ...LEADING_FIELDS.trim().split(/\s+/).map((name) => step(name)),
  ...QSO_TIME_FIELDS.map((name) => step(name)),
  ...PROFILE_STEPS,
];

/** Then the columns the plan did not place, in table order (timestamps are QSO_DATE/TIME_ON above). */
const STEPS: readonly Step[] = [
  ...PLANNED,
  ...FIELD_COLUMNS.filter((column) => column.kind !== 'timestamp' && !PLANNED.some((s) => s.key === column.name)).map((column) =>
    step(column.name.toUpperCase()),
  ),
];

/** For the many QSOs without `extra`: the steps that can yield a value without it. */
const STEPS_WITHOUT_EXTRA: readonly Step[] = STEPS.filter((s) => s.index >= 0 || s.fallback !== null);

/** `extra` keys the steps write; the rest of `extra` follows them. */
const WRITTEN_EXTRA_KEYS: ReadonlySet<string> = new Set(STEPS.map((s) => s.key));

/** The QSO's id. */
export function rowId(row: ExportRow): number {
  return Number(row[ID_INDEX]);
}

/** The row as `<NAME:len>value … <EOR>\n`. */
export function formatExportRow(row: ExportRow): string {
  const extraText = copyFieldValue(row[EXTRA_INDEX]!);
  const extra: Extra = extraText === null ? null : (JSON.parse(extraText) as Record<string, string>);
  const fields: Array<[string, string]> = [];
  for (const s of extra === null ? STEPS_WITHOUT_EXTRA : STEPS) {
    let value = qsoValue(s, row, extra);
    if (value === '' && s.fallback !== null) value = s.fallback(row, extra);
    if (value !== '') fields.push([s.name, value]);
  }
  if (extra !== null) {
    // jsonb keeps keys ordered by length; the rest is written in name order instead.
    const rest = Object.keys(extra).filter((key) => !WRITTEN_EXTRA_KEYS.has(key)).sort();
    for (const key of rest) fields.push([key.toUpperCase(), extra[key]!]);
  }
  return formatAdifRecord(fields);
}
