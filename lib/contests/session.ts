import { contests, type Contest } from '../catalog/contests.js';

/** The session members of a contest body (the settings: settings.ts; a body's are read in lib/http/v2/resources/contest). */
export interface SessionFields {
  /** ADIF Contest_ID, as the enumeration spells it. */
  contest: string;
  station_id: number;
  /** `YYYY-MM-DD HH:MM:SS`, UTC. */
  time_start: string;
  time_end: string | null;
  comment: string;
}

let byId: Map<string, Contest> | undefined;

/** The catalogue entry of an ADIF Contest_ID (enumeration values compare case-insensitively). */
export function contestEntry(id: string): Contest | undefined {
  byId ??= new Map(contests().map((contest) => [contest.contest.toUpperCase(), contest]));
  return byId.get(id.toUpperCase());
}
