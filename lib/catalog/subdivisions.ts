import { enumeration } from '../adif/spec.js';

/**
 * Primary administrative subdivisions (ADIF STATE values) of each DXCC entity, from the
 * ADIF 3.1.6 Primary_Administrative_Subdivision enumeration. Deleted subdivisions are
 * left out: some share their code with the current one (Perm`, PM, of Asiatic Russia).
 */

export interface Subdivision {
  /** The ADIF STATE code, e.g. "NS". */
  readonly state: string;
  /** e.g. "Nova Scotia". */
  readonly name: string;
  /** Accepted in imported logs but not to be chosen for new QSOs (e.g. Mexico's "DF"). */
  readonly importOnly: boolean;
}

const NONE: readonly Subdivision[] = Object.freeze([]);

let cached: ReadonlyMap<number, readonly Subdivision[]> | undefined;

function byEntity(): ReadonlyMap<number, readonly Subdivision[]> {
  if (cached) return cached;
  const map = new Map<number, Subdivision[]>();
  for (const record of enumeration('Primary_Administrative_Subdivision')) {
    if (record.Deleted === 'true') continue;
    const dxcc = Number(record['DXCC Entity Code']);
    let list = map.get(dxcc);
    if (!list) map.set(dxcc, (list = []));
    list.push(
      Object.freeze({
        state: record.Code ?? '',
        name: record['Primary Administrative Subdivision'] ?? '',
        importOnly: record['Import-only'] === 'true',
      }),
    );
  }
  for (const list of map.values()) Object.freeze(list);
  cached = map;
  return cached;
}

/** The current subdivisions of a DXCC entity in specification order; empty if it has none. */
export function subdivisionsFor(dxcc: number): readonly Subdivision[] {
  return byEntity().get(dxcc) ?? NONE;
}
