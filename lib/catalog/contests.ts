import { enumeration } from '../adif/spec.js';

/** The contest catalogue: the ADIF 3.1.6 Contest_ID enumeration. */

export interface Contest {
  /** 1-based position in the specification's list; stable for the shipped ADIF version. */
  readonly id: number;
  /** The ADIF Contest-ID, e.g. "CQ-WW-CW". */
  readonly contest: string;
  /** e.g. "CQ WW DX Contest (CW)". */
  readonly name: string;
  /** Accepted in imported logs but not to be chosen for new QSOs (e.g. "RAC"). */
  readonly importOnly: boolean;
}

interface Catalogue {
  readonly list: readonly Contest[];
  readonly ids: ReadonlySet<string>;
}

let cached: Catalogue | undefined;

function catalogue(): Catalogue {
  if (cached) return cached;
  const list = enumeration('Contest_ID').map((record, index): Contest =>
    Object.freeze({
      id: index + 1,
      contest: record['Contest-ID'] ?? '',
      name: record.Description ?? '',
      importOnly: record['Import-only'] === 'true',
    }),
  );
  cached = { list: Object.freeze(list), ids: new Set(list.map((c) => c.contest)) };
  return cached;
}

/** All contests, import-only ones included, in specification (alphabetical) order. */
export function contests(): readonly Contest[] {
  return catalogue().list;
}

/** Whether a CONTEST_ID value is in the enumeration; ADIF enumeration values compare case-insensitively. */
export function isKnownContest(id: string): boolean {
  return catalogue().ids.has(id.toUpperCase());
}
