import type { MatchBatchResult, MatchProblem } from './matchBatch.js';
import { recordPlace, type MessageLog } from './messages.js';

/**
 * The counts of the batches' matching, and one message per record that was not applied,
 * naming its QSO so that the user learns what is missing from the log. A record that is not
 * from a recognised download was marked for matching because the duplicate index knew its key:
 * when it finds no QSO (one the requester may not see), it is simply a skipped duplicate.
 */
export class MatchTally {
  matched = 0;
  changed = 0;
  inserted = 0;
  unmatched = 0;
  ambiguous = 0;
  skipped = 0;
  firstId: number | null = null;
  lastId: number | null = null;

  constructor(
    private readonly messages: MessageLog,
    /** Unmatched download records are inserted. */
    readonly inserting: boolean,
  ) {}

  add(batch: MatchBatchResult): void {
    this.matched += batch.matched;
    this.changed += batch.changed;
    this.inserted += batch.inserted;
    if (batch.firstId !== null) {
      this.firstId = Math.min(this.firstId ?? batch.firstId, batch.firstId);
      this.lastId = Math.max(this.lastId ?? batch.lastId!, batch.lastId!);
    }
    for (const problem of batch.problems) this.report(problem);
  }

  private report(problem: MatchProblem): void {
    const place = recordPlace(problem.record_no, problem.line);
    const qso = `${problem.call} ${problem.time} ${problem.band || '(no band)'} ${problem.mode || '(no mode)'}`;
    if (problem.kind === 'unmatched') {
      if (!problem.download) {
        this.skipped++;
        return;
      }
      this.unmatched++;
      this.messages.addSingle(`${place}: no QSO in the log matches ${qso}; ${this.inserting ? 'imported as a new QSO' : 'not imported'}`);
      return;
    }
    this.ambiguous++;
    const why = {
      tie: 'and another QSO equally near',
      claimed: ', which a nearer record of this input confirms',
      claimed_before: ', which an earlier record of this input confirmed',
    }[problem.kind];
    this.messages.addSingle(`${place}: ${qso} matches QSO ${problem.qso_id}${problem.kind === 'tie' ? ' ' : ''}${why}; not applied`);
  }
}
