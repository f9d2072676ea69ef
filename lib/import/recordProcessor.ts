import { normalizeRecord, type NormalizeOptions, type RawRecord } from '../adif/normalize.js';
import type { AdifHeader, AdifItem } from '../adif/types.js';
import type { CopyRows } from './copyRows.js';
import type { DupeIndex } from './dupeIndex.js';
import { downloadOfHeader, downloadOfRecord, translateDownload } from './downloads.js';
import { fillDxcc, fillStation, foreignCallsign, stationCallsignMismatch } from './enrich.js';
import type { TargetStation } from '../accounts/targetStations.js';
import { boundMessages, MessageLog, recordPlace } from './messages.js';
import { qsoLabel, QsoNotes, type ImportDoor, type NoteKind } from './qsoNotes.js';
import { markForMatch, newStagingRow, rowValues } from './rowValues.js';
import type { DownloadSource, ImportOptions } from './types.js';

/**
 * One record's way from raw fields to a COPY row: normalise, check the station callsign (v1),
 * read a recognised download's fields as their service means them, fill DXCC and station data,
 * and decide what becomes of it: a row to insert, a row to match with a stored QSO (confirm and
 * merge policies: a duplicate, or any record of a recognised download), or nothing (a duplicate
 * under `skip`). Counts what happened for the summary.
 */
export class RecordProcessor {
  parsed = 0;
  failed = 0;
  /** Duplicates found here (of stored rows or of earlier records); the database may find more. */
  skipped = 0;
  /** Rows handed on to the staging table to be inserted. */
  staged = 0;
  /** Rows handed on to the staging table to be matched with stored QSOs. */
  toMatch = 0;
  /** The first recognised download among the records (or the header's). */
  download: DownloadSource | null = null;
  readonly messages = new MessageLog();
  /** What became of records for reasons of their QSO (duplicates, unmatched, foreign callsign). */
  readonly notes: QsoNotes;

  private readonly normalizeOptions: NormalizeOptions;
  private readonly row = newStagingRow();
  /** Upper-case names the document's header declares with USERDEFn: expected, so not reported. */
  private userFields: ReadonlySet<string> = new Set();

  /** `dupes` null: no duplicate check here (a dry run; or the unique index decides, direct.ts). */
  constructor(
    private readonly station: TargetStation,
    private readonly options: ImportOptions,
    private readonly dupes: DupeIndex | null,
  ) {
    this.normalizeOptions = { frequencyUnit: options.frequencyUnit };
    this.notes = new QsoNotes(station.callsign);
  }

  /** The location the rows go to. */
  get stationId(): number {
    return this.station.id;
  }

  /** The summary's messages: the grouped notes first (what a person asks first), then the reader's, bounded in bytes. */
  summaryMessages(): string[] {
    const door: ImportDoor = this.options.door ?? 'http';
    // v1 answers its duplicates in a line of its own (the original's wording, which clients know).
    const omit: NoteKind[] = door === 'v1' ? ['duplicate'] : [];
    return boundMessages([...this.notes.lines(door, omit), ...this.messages.list()]);
  }

  /** The download a header announces applies to every record of the document. */
  private headerDownload: DownloadSource | null = null;

  /**
   * Takes from an ADIF header the user-defined field names (USERDEF1 "SWEATERSIZE,{S,M,L}" →
   * SWEATERSIZE) and whether the document is a recognised download.
   */
  private readHeader(header: Readonly<AdifHeader>): void {
    const names = new Set<string>();
    for (const [name, value] of Object.entries(header.fields)) {
      if (/^USERDEF\d+$/i.test(name)) names.add(value.split(/[,{]/, 1)[0]!.trim().toUpperCase());
    }
    this.userFields = names;
    this.headerDownload = downloadOfHeader(header.fields, header.comment);
    this.download ??= this.headerDownload;
  }

  /** An ADIF reader's item: a record's COPY row added to `rows`, unless it is not to be stored (or not a record). */
  processItem(item: AdifItem, rows: CopyRows): void {
    const values = this.itemValues(item);
    if (values !== null) rows.add(values);
  }

  /**
   * Like processItem, the row as column values (INSERT_COLUMNS order, then MATCH_COLUMNS;
   * reused from record to record).
   */
  itemValues(item: AdifItem): Array<string | null> | null {
    if (item.kind === 'record') return this.values(item.fields, item.recordNo, item.line);
    if (item.kind === 'problem') this.messages.add(item.problem.message);
    else this.readHeader(item.header);
    return null;
  }

  /** The COPY row for a record added to `rows`, unless it is not to be stored. `line` null for JSON records. */
  process(raw: RawRecord, recordNo: number, line: number | null, rows: CopyRows): void {
    const values = this.values(raw, recordNo, line);
    if (values !== null) rows.add(values);
  }

  private values(raw: RawRecord, recordNo: number, line: number | null): Array<string | null> | null {
    this.parsed++;
    const { qso, messages, unknownFields } = normalizeRecord(raw, this.normalizeOptions);
    if (unknownFields.length > 0) {
      const unexpected = this.userFields.size === 0 ? unknownFields : unknownFields.filter((name) => !this.userFields.has(name));
      this.messages.addUnknownFields(recordPlace(recordNo, line), unexpected);
    }
    if (qso === null) return this.reject(recordNo, line, messages.join('; '));
    if (messages.length > 0) this.messages.addAll(recordPlace(recordNo, line), messages);
    if (this.options.checkStationCallsign) {
      const mismatch = stationCallsignMismatch(qso, this.station);
      if (mismatch !== null) return this.reject(recordNo, line, mismatch);
    } else {
      const foreign = foreignCallsign(qso, this.station);
      // A club member's own call in OPERATOR is who operated the club station, not another station.
      if (foreign !== null && foreign !== this.options.operator && foreign !== this.options.defaultOperator) {
        const label = () => `${foreign}: ${qsoLabel(qso.call, qso.timeOn, qso.band, qso.mode)}`;
        if (this.options.strictCallsign) {
          this.failed++;
          this.notes.add('foreign_callsign_refused', label, foreign);
          return null;
        }
        this.notes.add('foreign_callsign', label, foreign);
      }
    }
    const download = this.headerDownload ?? downloadOfRecord(qso.fields);
    if (download !== null) {
      translateDownload(download, qso);
      this.download ??= download;
    }
    const policy = this.options.onDuplicate ?? (download !== null ? 'confirm' : 'skip');
    // A download's records are all matched (they describe QSOs the log should hold); other
    // records only when the duplicate index knows their key.
    let match = policy !== 'skip' && download !== null;
    if (!match && this.dupes !== null && !this.dupes.add(qso.call, qso.timeOn, qso.band, qso.mode)) {
      if (policy === 'skip') {
        this.skipped++;
        this.notes.add('duplicate', () => qsoLabel(qso.call, qso.timeOn, qso.band, qso.mode));
        return null;
      }
      match = true;
    }
    fillDxcc(qso);
    fillStation(qso, this.station, this.options.operator, this.options.defaultOperator);
    const row = rowValues(qso, this.row);
    if (match) {
      markForMatch(row, recordNo, line, download !== null);
      this.toMatch++;
    } else this.staged++;
    return row;
  }

  private reject(recordNo: number, line: number | null, reason: string): null {
    this.failed++;
    this.messages.add(`${recordPlace(recordNo, line)}: not imported: ${reason}`);
    return null;
  }
}
