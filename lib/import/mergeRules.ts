import { INSERT_COLUMNS } from './rowValues.js';

/**
 * What a matched record does to the stored QSO, as SQL expressions over the stored row `q` and
 * the staged record `r`, one per column the policy may change:
 *
 * - statuses (QSL_SENT/RCVD of card, LoTW, eQSL, DCL; QRZ and Club Log upload and download
 *   status) move only forward, by qsl_status_rank (sql/008): N < R/Q/I/M < Y/V, so Y never
 *   goes back to N or R and equal ranks never replace each other;
 * - the date that goes with a status (DATES[i] with STATUSES[i]) is only filled or advanced
 *   (GREATEST ignores NULL), and only by a record whose status ranks at least the stored one:
 *   an R under a stored Y leaves the Y's date alone;
 * - QSL_VIA, QSL_SENT_VIA/RCVD_VIA, QSLMSG_RCVD and EQSL_AG are only filled;
 * - `merge` also fills every other empty column, and adds the record's `extra` fields the
 *   stored QSO lacks. Nothing that is there is ever overwritten.
 *
 * The match keys (call, time_on, band, mode) never change.
 */

export type MatchPolicy = 'confirm' | 'merge';

export interface ColumnChange {
  readonly column: string;
  /** The column's new value, over `q` (stored) and `r` (staged). */
  readonly value: string;
}

function names(list: string): string[] {
  const known = new Set(INSERT_COLUMNS.map((column) => column.name));
  return list.trim().split(/\s+/).map((name) => {
    if (!known.has(name)) throw new Error(`merge rules name ${name}, which is not a qso column written by imports`);
    return name;
  });
}

const STATUSES = names(`qsl_sent qsl_rcvd lotw_qsl_sent lotw_qsl_rcvd eqsl_qsl_sent eqsl_qsl_rcvd dcl_qsl_sent dcl_qsl_rcvd
  qrzcom_qso_upload_status qrzcom_qso_download_status clublog_qso_upload_status clublog_qso_download_status`);
const DATES = names(`qslsdate qslrdate lotw_qslsdate lotw_qslrdate eqsl_qslsdate eqsl_qslrdate dcl_qslsdate dcl_qslrdate
  qrzcom_qso_upload_date qrzcom_qso_download_date clublog_qso_upload_date clublog_qso_download_date`);
const FILLED = names('qsl_via qsl_sent_via qsl_rcvd_via qslmsg_rcvd eqsl_ag');
const KEYS = new Set(names('call time_on band mode'));

const forward = (column: string): ColumnChange => ({
  column,
  value: `CASE WHEN qsl_status_rank(r.${column}) > qsl_status_rank(q.${column}) THEN r.${column} ELSE q.${column} END`,
});
const advance = (column: string, status: string): ColumnChange => ({
  column,
  value: `CASE WHEN qsl_status_rank(r.${status}) >= qsl_status_rank(q.${status}) THEN GREATEST(q.${column}, r.${column}) ELSE q.${column} END`,
});
const fill = (column: string): ColumnChange => ({ column, value: `COALESCE(q.${column}, r.${column})` });

const CONFIRM: readonly ColumnChange[] = [...STATUSES.map(forward), ...DATES.map((date, i) => advance(date, STATUSES[i]!)), ...FILLED.map(fill)];
const CONFIRMED = new Set(CONFIRM.map((change) => change.column));

const MERGE: readonly ColumnChange[] = [
  ...CONFIRM,
  ...INSERT_COLUMNS.filter(({ name }) => !KEYS.has(name) && !CONFIRMED.has(name) && name !== 'extra').map(({ name }) => fill(name)),
  // Keys the stored QSO has win (the right operand of || wins).
  { column: 'extra', value: `CASE WHEN r.extra IS NULL THEN q.extra ELSE r.extra || COALESCE(q.extra, '{}'::jsonb) END` },
];

export function columnChanges(policy: MatchPolicy): readonly ColumnChange[] {
  return policy === 'merge' ? MERGE : CONFIRM;
}
