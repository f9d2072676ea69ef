import type pg from 'pg';
import { columnChanges, type MatchPolicy } from './mergeRules.js';
import { INSERT_COLUMNS } from './rowValues.js';
import { callCondition } from '../qso/filters.js';

/**
 * The confirm and merge policies' database half: one statement per batch matches the staged
 * records marked for matching with the stored QSOs and applies them (the only UPDATE of qso an
 * import makes). Matching is the services' (LoTW's) rule: same location, callsign, band and
 * mode group (qso_mode_group, sql/008), time_on within ±30 minutes; the nearest in time wins
 * (the same main mode before another of its group, then the lower id). A record with two QSOs
 * equally near, every record but the nearest of several in a batch that pick the same QSO, and a
 * record picking a QSO that an earlier batch's record already confirmed (import_claims: the first
 * claim stands, earlier batches are never revisited), are not applied but reported. Candidates come from a range scan of qso_dupe_key (station_id, base call, call,
 * minute of time_on, …) per record: LATERAL keeps the planner from hashing the whole location
 * against a temporary table it has no statistics for.
 *
 * Only QSOs whose new values differ are updated (and get updated_at): a report applied twice
 * changes nothing the second time, and every updated row is a real change for the change feed.
 * A club member below officer level (`operator`) matches only the QSOs they operated.
 */

export interface MatchBatchOptions {
  stationId: number;
  /** Restricts matching to the QSOs of this operator (lib/qso/scope.ts), or null. */
  operator: string | null;
  policy: MatchPolicy;
  /** Records of a recognised download that match nothing are inserted as new QSOs. */
  insertUnmatched: boolean;
  /** Count what would change and be inserted; write nothing. */
  dryRun: boolean;
}

/** A staged record that was not applied. */
export interface MatchProblem {
  record_no: number;
  line: number | null;
  download: boolean;
  call: string;
  /** 'YYYY-MM-DD HH:MM'. */
  time: string;
  band: string;
  mode: string;
  /**
   * unmatched: no QSO; tie: two QSOs equally near; claimed: a nearer record of the batch picked
   * the same QSO; claimed_before: a record of an earlier batch did.
   */
  kind: 'unmatched' | 'tie' | 'claimed' | 'claimed_before';
  qso_id: number | null;
}

export interface MatchBatchResult {
  /** Records that found their QSO. */
  matched: number;
  /** QSOs that changed (would change, in a dry run). */
  changed: number;
  /** Unmatched download records inserted (would be, in a dry run). */
  inserted: number;
  firstId: number | null;
  lastId: number | null;
  problems: MatchProblem[];
}

const COLUMNS = INSERT_COLUMNS.map((column) => column.name).join(', ');
const WINDOW = "interval '30 minutes'";

function matchStatement(options: MatchBatchOptions): string {
  const changes = columnChanges(options.policy);
  const differs = `ROW(${changes.map((change) => change.value).join(', ')}) IS DISTINCT FROM ROW(${changes.map((change) => `q.${change.column}`).join(', ')})`;
  const changed = options.dryRun
    ? `SELECT q.id FROM matched m JOIN qso q ON q.id = m.id JOIN import_staging r ON r.match_record = m.record_no WHERE ${differs}`
    : `UPDATE qso q SET ${changes.map((change) => `${change.column} = ${change.value}`).join(', ')}, updated_at = now()
       FROM matched m JOIN import_staging r ON r.match_record = m.record_no
       WHERE q.id = m.id AND ${differs}
       RETURNING q.id`;
  const unmatched = 'FROM import_staging s WHERE s.match_download AND NOT EXISTS (SELECT 1 FROM candidates c WHERE c.record_no = s.match_record)';
  let inserted = 'SELECT NULL::bigint AS id WHERE false';
  if (options.insertUnmatched) {
    inserted = options.dryRun
      ? `SELECT NULL::bigint AS id ${unmatched}`
      : `INSERT INTO qso (station_id, ${COLUMNS}) SELECT $1, ${COLUMNS} ${unmatched} ORDER BY s.match_record ON CONFLICT DO NOTHING RETURNING id`;
  }
  return `WITH report AS MATERIALIZED (
      SELECT match_record AS record_no, call, time_on, band, mode FROM import_staging WHERE match_record IS NOT NULL
    ),
    candidates AS MATERIALIZED (
      SELECT r.record_no, c.id, c.distance, c.other_mode
      FROM report r CROSS JOIN LATERAL (
        SELECT q.id, abs(extract(epoch FROM q.time_on - r.time_on)) AS distance, q.mode <> r.mode AS other_mode
        FROM qso q
        WHERE q.station_id = $1 AND ${callCondition('r.call')}
          AND date_trunc('minute', q.time_on) BETWEEN date_trunc('minute', r.time_on - ${WINDOW}) AND r.time_on + ${WINDOW}
          AND q.time_on BETWEEN r.time_on - ${WINDOW} AND r.time_on + ${WINDOW}
          AND q.band = r.band AND qso_mode_group(q.mode) = qso_mode_group(r.mode)
          ${options.operator !== null ? 'AND q.operator = $2' : ''}
        ORDER BY distance, other_mode, q.id
        LIMIT 2
      ) c
    ),
    best AS (
      SELECT DISTINCT ON (record_no) record_no, id, distance, count(*) OVER (PARTITION BY record_no, distance, other_mode) AS equally_near
      FROM candidates ORDER BY record_no, distance, other_mode, id
    ),
    claims AS (
      SELECT record_no, id, row_number() OVER (PARTITION BY id ORDER BY distance, record_no) AS claim FROM best b
      WHERE equally_near = 1 AND NOT EXISTS (SELECT 1 FROM import_claims k WHERE k.qso_id = b.id)
    ),
    matched AS MATERIALIZED (SELECT record_no, id FROM claims WHERE claim = 1),
    -- Seen by the next batches' statements only (a statement does not see its own writes).
    claimed AS (INSERT INTO import_claims (qso_id) SELECT id FROM matched),
    changed AS (${changed}),
    inserted AS (${inserted}),
    problems AS (
      SELECT s.match_record AS record_no, s.match_line AS line, s.match_download AS download, s.call,
             to_char(s.time_on, 'YYYY-MM-DD HH24:MI') AS time, s.band, s.mode,
             CASE WHEN b.record_no IS NULL THEN 'unmatched' WHEN b.equally_near > 1 THEN 'tie'
                  WHEN EXISTS (SELECT 1 FROM import_claims k WHERE k.qso_id = b.id) THEN 'claimed_before' ELSE 'claimed' END AS kind,
             b.id AS qso_id
      FROM import_staging s LEFT JOIN best b ON b.record_no = s.match_record
      WHERE s.match_record IS NOT NULL AND NOT EXISTS (SELECT 1 FROM matched m WHERE m.record_no = s.match_record)
    )
    SELECT (SELECT count(*) FROM matched)::int AS matched,
           (SELECT count(*) FROM changed)::int AS changed,
           (SELECT count(*) FROM inserted)::int AS inserted,
           (SELECT min(id) FROM inserted) AS first_id,
           (SELECT max(id) FROM inserted) AS last_id,
           (SELECT COALESCE(json_agg(p ORDER BY p.record_no), '[]'::json) FROM problems p) AS problems`;
}

interface MatchRow {
  matched: number;
  changed: number;
  inserted: number;
  first_id: string | null;
  last_id: string | null;
  problems: Array<Omit<MatchProblem, 'qso_id'> & { qso_id: string | number | null }>;
}

/** Matches and applies the staged records of one batch (inside the import's transaction). */
export async function matchStagedRows(client: pg.PoolClient, options: MatchBatchOptions): Promise<MatchBatchResult> {
  const params: unknown[] = [options.stationId];
  if (options.operator !== null) params.push(options.operator);
  const { rows } = await client.query<MatchRow>(matchStatement(options), params);
  const row = rows[0]!;
  return {
    matched: row.matched,
    changed: row.changed,
    inserted: row.inserted,
    firstId: row.first_id === null ? null : Number(row.first_id),
    lastId: row.last_id === null ? null : Number(row.last_id),
    problems: row.problems.map((problem) => ({ ...problem, qso_id: problem.qso_id === null ? null : Number(problem.qso_id) })),
  };
}
