import type { MatchBatchResult, MatchProblem } from './matchBatch.js';
import { qsoLabel, type QsoNotes } from './qsoNotes.js';

/**
 * The counts of the batches' matching, and a grouped note for the records that were not applied
 * (QsoNotes), naming the first QSOs so that the user learns what is missing from the log. A record
 * that is not from a recognised download was marked for matching because the duplicate index
 * knew its key: when it finds no QSO (one the requester may not see), it is simply a skipped
 * duplicate.
 */
export class MatchTally {
  matched = 0;
  changed = 0;
  inserted = 0;
  unmatched = 0;
  /** Unmatched download records of batches that inserted them: those not inserted lost to a concurrent writer. */
  meantToInsert = 0;
  ambiguous = 0;
  skipped = 0;
  firstId: number | null = null;
  lastId: number | null = null;

  constructor(private readonly notes: QsoNotes) {}

  /** `inserting`: the batch inserted its unmatched download records. */
  add(batch: MatchBatchResult, inserting: boolean): void {
    this.matched += batch.matched;
    this.changed += batch.changed;
    this.inserted += batch.inserted;
    if (batch.firstId !== null) {
      this.firstId = Math.min(this.firstId ?? batch.firstId, batch.firstId);
      this.lastId = Math.max(this.lastId ?? batch.lastId!, batch.lastId!);
    }
    for (const problem of batch.problems) this.report(problem, inserting);
  }

  private report(problem: MatchProblem, inserting: boolean): void {
    const qso = () => qsoLabel(problem.call, problem.time, problem.band, problem.mode);
    if (problem.kind === 'unmatched') {
      if (!problem.download) {
        this.skipped++;
        this.notes.add('duplicate', qso);
        return;
      }
      this.unmatched++;
      if (inserting) this.meantToInsert++;
      this.notes.add(inserting ? 'unmatched_inserted' : 'unmatched_kept_out', qso);
      return;
    }
    this.ambiguous++;
    this.notes.add(problem.kind, () => `${qso()} (QSO ${problem.qso_id})`);
  }
}
