/** What the import entry points (pipeline.ts, insertOne.ts) take and return. */

/** One QSO as a JSON client sends it (lower-case ADIF names) or the ADIF reader yields it (upper-case). */
export type { RawRecord } from '../adif/normalize.js';

export interface ImportOptions {
  stationId: number;
  /** Unit of FREQ / FREQ_RX values without a suffix: ADIF documents MHz, JSON Hz. */
  frequencyUnit: 'MHz' | 'Hz';
  /** Parse, normalise and check duplicates only; nothing is written and summary.imported counts what would be stored. */
  dryRun?: boolean;
  /** Forced OPERATOR (a club member below officer level logs as themself). */
  operator?: string | null;
  /**
   * OPERATOR for records that name none, or name the station's own callsign (a club key of an
   * officer: the QSO was made by that member, not by "the club").
   */
  defaultOperator?: string | null;
  /** v1 api/qso: skip (and report) records whose STATION_CALLSIGN differs from the location's callsign. */
  checkStationCallsign?: boolean;
  /** Rows moved from the staging table into `qso` at a time (default 25,000); tests set it small to fail an import after several batches. */
  rowsPerBatch?: number;
  /** Aborting rolls the import back, even after the whole input was read (until it commits). */
  signal?: AbortSignal;
  /** Called as input is consumed (per chunk of an ADIF document, per batch of JSON records; `bytes` is 0 for JSON records). */
  onProgress?: (progress: { records: number; bytes: number }) => void;
}

export interface ImportSummary {
  /** Records received or found, with or without errors. */
  parsed: number;
  /** Rows stored (a dry run: rows that would be stored). */
  imported: number;
  /** Duplicates: of stored rows, of earlier records of the same input, or lost to a concurrent writer. */
  skipped: number;
  /** Records rejected with a hard error (no CALL, bad date, station callsign mismatch, …). */
  failed: number;
  /** "record 12, line 340: …", capped (see MessageLog). */
  messages: string[];
  /** Id range of the stored rows; null when none was stored. */
  firstId: number | null;
  lastId: number | null;
}
