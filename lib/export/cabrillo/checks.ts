import type { ExchangePart } from './exchange.js';
import type { QsoLine } from './qsoLine.js';
import type { SessionQso } from './sessionRows.js';

/** What the checks report; docs/cabrillo.md says how to fix each. */
export const PROBLEM_KINDS = {
  outside_session: 'QSOs outside the session\'s time',
  missing_exchange: 'QSOs missing part of the exchange',
  duplicate: 'duplicate QSOs (same call, band and mode as an earlier one)',
  serial_out_of_sequence: 'serial numbers sent out of sequence',
  serial_repeated: 'serial numbers sent more than once',
  mode_not_expressible: 'QSOs in a mode Cabrillo cannot express (written as DG)',
  band_not_expressible: 'QSOs on a band Cabrillo cannot express (written as the frequency in kHz)',
  missing_transmitter_id: 'QSOs without a transmitter id (written as 0)',
  field_truncated: 'values cut to their column\'s width',
} as const;

export type ProblemKind = keyof typeof PROBLEM_KINDS;

export interface ProblemReport {
  kind: ProblemKind;
  message: string;
  count: number;
  /** The first few QSOs of the kind, as a person finds them in the log. */
  examples: string[];
}

const EXAMPLES_PER_KIND = 5;

/** Counts problems by kind and keeps the first few examples of each: bounded whatever the log's size. */
export class ProblemTally {
  private readonly byKind = new Map<ProblemKind, { count: number; examples: string[] }>();

  add(qso: SessionQso, kind: ProblemKind, detail: string): void {
    let entry = this.byKind.get(kind);
    if (!entry) this.byKind.set(kind, (entry = { count: 0, examples: [] }));
    entry.count += 1;
    if (entry.examples.length < EXAMPLES_PER_KIND) {
      entry.examples.push(`#${qso.id} ${qso.call} ${qso.date} ${qso.hhmm} ${qso.band} ${qso.mode}: ${detail}`);
    }
  }

  get total(): number {
    let total = 0;
    for (const entry of this.byKind.values()) total += entry.count;
    return total;
  }

  report(): ProblemReport[] {
    return (Object.keys(PROBLEM_KINDS) as ProblemKind[]).flatMap((kind) => {
      const entry = this.byKind.get(kind);
      return entry ? [{ kind, message: PROBLEM_KINDS[kind], ...entry }] : [];
    });
  }
}

/** The checks of one QSO, from its statement's facts (sessionRows.ts), its exchange and its line. */
export function checkQso(tally: ProblemTally, qso: SessionQso, exchange: ExchangePart[], line: QsoLine, hasTransmitterId: boolean): void {
  if (qso.outside) tally.add(qso, 'outside_session', 'logged outside the session');
  const missing = exchange.flatMap((part) => [...(part.sent === null ? [`sent ${part.name}`] : []), ...(part.rcvd === null ? [`received ${part.name}`] : [])]);
  if (missing.length) tally.add(qso, 'missing_exchange', `no ${missing.join(', ')}`);
  if (qso.duplicate) tally.add(qso, 'duplicate', 'worked before on this band and mode');
  const serialSent = exchange.some((part) => part.name === 'serial') && qso.stx !== null;
  if (serialSent && qso.same_stx > 1) tally.add(qso, 'serial_repeated', `serial ${qso.stx} sent ${qso.same_stx} times`);
  if (serialSent && qso.prev_stx !== null && qso.stx !== qso.prev_stx + 1 && qso.stx !== qso.prev_stx) {
    tally.add(qso, 'serial_out_of_sequence', `serial ${qso.stx} after ${qso.prev_stx}`);
  }
  if (!line.modeWritten) tally.add(qso, 'mode_not_expressible', `mode ${qso.mode}`);
  if (!line.bandWritten) tally.add(qso, 'band_not_expressible', `band ${qso.band || 'unknown'}`);
  if (!hasTransmitterId) tally.add(qso, 'missing_transmitter_id', 'no APP_N1MM_RADIO_NR');
  for (const field of line.truncated) tally.add(qso, 'field_truncated', field);
}
