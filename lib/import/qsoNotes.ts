/**
 * What became of records for a reason that concerns the QSO, not its fields (a duplicate, a
 * download record that matched nothing, a foreign station callsign): one line per kind with the
 * count and the first few QSOs (call, time, band, mode), never a line per record, and the option
 * that would have done otherwise, spelt as the door the import came through takes it.
 */

export type NoteKind =
  | 'duplicate'
  | 'unmatched_kept_out'
  | 'unmatched_inserted'
  | 'tie'
  | 'claimed'
  | 'claimed_before'
  | 'foreign_callsign'
  | 'foreign_callsign_refused';

/** Where the import came from: the spelling of its options in the hints. v1 has no such options. */
export type ImportDoor = 'http' | 'cli' | 'v1';

interface OptionSpelling {
  insertUnmatched: (on: boolean) => string;
  strictCallsign: string;
}

const SPELLING: Readonly<Record<Exclude<ImportDoor, 'v1'>, OptionSpelling>> = {
  http: { insertUnmatched: (on) => `insert_unmatched=${on}`, strictCallsign: 'strict_callsign=true' },
  cli: { insertUnmatched: (on) => (on ? '--insert-unmatched' : '--no-insert-unmatched'), strictCallsign: '--strict-callsign' },
};

const EXAMPLES_SHOWN = 5;
const SUBJECTS_SHOWN = 3;

interface NoteGroup {
  count: number;
  examples: string[];
  /** Distinct callsigns a foreign-callsign group names (the first few), and whether there are more. */
  subjects: string[];
  moreSubjects: boolean;
}

/** "W1AW 2024-01-05 14:02 20m FT8". `time` is 'YYYY-MM-DD HH:MM[:SS]'. */
export function qsoLabel(call: string, time: string, band: string, mode: string): string {
  return `${call} ${time.slice(0, 16)} ${band || '(no band)'} ${mode || '(no mode)'}`;
}

export class QsoNotes {
  private readonly groups = new Map<NoteKind, NoteGroup>();
  /** Unmatched download records were inserted because of what the download is, not because asked. */
  insertedByDefault = false;

  /** `location`: the location's callsign, named by the callsign groups. */
  constructor(private readonly location: string) {}

  /** `describe` names the QSO (qsoLabel); called for the first few of a kind only. */
  add(kind: NoteKind, describe: () => string, subject?: string): void {
    let group = this.groups.get(kind);
    if (group === undefined) this.groups.set(kind, (group = { count: 0, examples: [], subjects: [], moreSubjects: false }));
    group.count++;
    if (group.examples.length < EXAMPLES_SHOWN) group.examples.push(describe());
    if (subject === undefined || group.subjects.includes(subject)) return;
    if (group.subjects.length < SUBJECTS_SHOWN) group.subjects.push(subject);
    else group.moreSubjects = true;
  }

  /** Duplicates the database found (lost to a concurrent writer, or left out by its unique index): counted, not named. */
  addCount(kind: NoteKind, count: number): void {
    if (count <= 0) return;
    const group = this.groups.get(kind);
    if (group === undefined) this.groups.set(kind, { count, examples: [], subjects: [], moreSubjects: false });
    else group.count += count;
  }

  /** One line per kind seen; `omit` leaves kinds out (v1 reports duplicates its own way). */
  lines(door: ImportDoor, omit: readonly NoteKind[] = []): string[] {
    const spelling = door === 'v1' ? null : SPELLING[door];
    const lines: string[] = [];
    for (const [kind, group] of this.groups) {
      if (omit.includes(kind)) continue;
      const first = group.examples.length === 0 ? '' : ` (first: ${group.examples.join('; ')}${group.count > group.examples.length ? '; …' : ''})`;
      const hint = spelling === null ? '' : this.hint(kind, spelling);
      lines.push(`${this.sentence(kind, group)}${first}${hint}`);
    }
    return lines;
  }

  private sentence(kind: NoteKind, { count, subjects, moreSubjects }: NoteGroup): string {
    const one = count === 1;
    const records = one ? '1 record' : `${count} records`;
    const were = one ? 'was' : 'were';
    const callsigns = `${subjects.join(', ')}${moreSubjects ? ', …' : ''}`;
    switch (kind) {
      case 'duplicate': return `${records} skipped as duplicates: already in the log or earlier in this input`;
      case 'unmatched_kept_out': return `${records} matched no QSO in the log and ${were} not imported`;
      case 'unmatched_inserted': return `${records} matched no QSO in the log and ${were} imported as new QSOs`;
      case 'tie': return `${records} matched two QSOs equally near and ${were} not applied`;
      case 'claimed': return `${records} matched a QSO that a nearer record of this input confirms and ${were} not applied`;
      case 'claimed_before': return `${records} matched a QSO that an earlier record of this input confirmed and ${were} not applied`;
      case 'foreign_callsign': return `${records} ${one ? 'names' : 'name'} station callsign ${callsigns}, not the location's ${this.location}: imported all the same`;
      case 'foreign_callsign_refused': return `${records} ${one ? 'names' : 'name'} station callsign ${callsigns}, not the location's ${this.location}: not imported`;
    }
  }

  private hint(kind: NoteKind, spelling: OptionSpelling): string {
    if (kind === 'unmatched_kept_out') return `; import with ${spelling.insertUnmatched(true)} to store them`;
    if (kind === 'unmatched_inserted' && this.insertedByDefault) return `; import with ${spelling.insertUnmatched(false)} to only confirm QSOs already in the log`;
    if (kind === 'foreign_callsign') return `; import with ${spelling.strictCallsign} to refuse them`;
    return '';
  }
}
