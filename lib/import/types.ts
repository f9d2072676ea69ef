/** What the import entry points (pipeline.ts, insertOne.ts) take and return. */
import type pg from 'pg';
import type { ImportDoor } from './qsoNotes.js';

/** One QSO as a JSON client sends it (lower-case ADIF names) or the ADIF reader yields it (upper-case). */
export type { RawRecord } from '../adif/normalize.js';

/**
 * What happens to a record that is already in the log: `skip` it (the default for ordinary
 * files); `confirm`: apply its QSL and confirmation state to the stored QSO, moving statuses
 * only forward and dates only forward; `merge`: confirm, and fill the stored QSO's empty fields.
 */
export const DUPLICATE_POLICIES = ['skip', 'confirm', 'merge'] as const;
export type DuplicatePolicy = (typeof DUPLICATE_POLICIES)[number];

export function isDuplicatePolicy(value: unknown): value is DuplicatePolicy {
  return (DUPLICATE_POLICIES as readonly unknown[]).includes(value);
}

/** Confirmation downloads the import recognises (lib/import/downloads.ts). */
export type DownloadSource = 'lotw' | 'qrz' | 'eqsl' | 'clublog';

/** A QRZ logbook or Club Log download is the user's whole log there; LoTW and eQSL send confirmations. */
export function wholeLogDownload(source: DownloadSource | null): boolean {
  return source === 'qrz' || source === 'clublog';
}

export interface ImportOptions {
  stationId: number;
  /**
   * Policy for records already in the log. Absent: `confirm` for the records of a recognised
   * download (LoTW report, QRZ logbook, eQSL inbox, Club Log), `skip` for everything else.
   */
  onDuplicate?: DuplicatePolicy;
  /**
   * A recognised download's records that match no stored QSO: inserted (true) or reported only
   * (false). Absent: by what the download is (wholeLogDownload) and where it goes: a QRZ logbook
   * or Club Log download (the user's whole log), or any download into a location without QSOs,
   * inserts them; a LoTW report or eQSL inbox (confirmations) reports them.
   */
  insertUnmatched?: boolean;
  /** Records whose STATION_CALLSIGN (else OPERATOR) is not the location's callsign are refused, not only counted under a warning. */
  strictCallsign?: boolean;
  /** Where the import came from: how its messages spell the options (default http). */
  door?: ImportDoor;
  /** Unit of FREQ / FREQ_RX values without a suffix: ADIF documents MHz, JSON Hz. */
  frequencyUnit: 'MHz' | 'Hz';
  /**
   * Run the import inside a transaction that is rolled back: the summary gives the counts a real
   * import would, nothing is written and no import lock is taken.
   */
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
  /**
   * When another import holds the location: 'wait' for it (the default), or 'none': fail at once
   * with LocationBusyError, before a byte of the input is read (background jobs, which must not
   * hold a runner and a connection while they wait).
   */
  lockWait?: 'wait' | 'none';
  /** Aborting rolls the import back, even after the whole input was read (until it commits). */
  signal?: AbortSignal;
  /** Called as input is consumed (per chunk of an ADIF document, per batch of JSON records; `bytes` is 0 for JSON records). */
  onProgress?: (progress: { records: number; bytes: number }) => void;
  /**
   * Called in the import's transaction after the last record, before COMMIT (never in a dry
   * run): what it writes commits with the QSOs or not at all, and a throw rolls the import back.
   */
  beforeCommit?: (client: pg.PoolClient, summary: ImportSummary) => Promise<void>;
}

export interface ImportSummary {
  /** Records received or found, with or without errors. */
  parsed: number;
  /** Rows stored (in a dry run: rows that would be). */
  imported: number;
  /** Stored QSOs a record changed (confirm and merge policies). */
  confirmed: number;
  /** Stored QSOs a record matched without changing anything (already confirmed). */
  unchanged: number;
  /** Records of a recognised download that match no stored QSO, inserted or not (grouped in messages). */
  unmatched: number;
  /** Records not applied because the match was ambiguous (named in messages). */
  ambiguous: number;
  /** Duplicates: of stored rows, of earlier records of the same input, or lost to a concurrent writer. */
  skipped: number;
  /** Records rejected with a hard error (no CALL, bad date, station callsign mismatch, …). */
  failed: number;
  /**
   * One line per kind with a count and the first few records: what became of records (duplicates,
   * unmatched, foreign callsign; QsoNotes), then the reader's "record 12, line 340: …" (MessageLog),
   * at most MESSAGES_MAX_BYTES.
   */
  messages: string[];
  /** The recognised download the input was (of its first recognised record), or null. */
  download: DownloadSource | null;
  /** Id range of the stored rows; null when none was stored. */
  firstId: number | null;
  lastId: number | null;
}
