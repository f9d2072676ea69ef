/**
 * Names of the live-update topics the application publishes to. The worker
 * treats them as opaque; the application decides who may watch which one, so
 * `parseTopic` turns a name back into the object whose ownership it must check.
 */

export type TopicKind = 'station' | 'qsos_user' | 'radio' | 'radios_user';

export interface ParsedTopic {
  kind: TopicKind;
  id: number;
}

/** QSOs logged on one station location (logbook profile). */
export const stationTopic = (stationId: number): string => `station.${stationId}`;
/** QSOs of all stations of one user. */
export const userTopic = (userId: number): string => `qsos_user.${userId}`;
/** Status of one radio (CAT interface). */
export const radioTopic = (radioId: number): string => `radio.${radioId}`;
/** Status changes of all radios of one user. */
export const radiosUserTopic = (userId: number): string => `radios_user.${userId}`;

/**
 * A published logbook's public live log: registered without token requirement (anyone may watch),
 * carrying only what the owner published (lib/publicLog/pushes.ts). Not a parseTopic kind: no
 * browser token is ever minted for it.
 */
export const publicLogTopic = (logbookId: number): string => `public_log.${logbookId}`;

const TOPIC = /^(station|qsos_user|radio|radios_user)\.([1-9][0-9]{0,15})$/;

/** `{kind, id}` for one of the application's topic names; null for anything else (foreign, malformed, id 0). */
export function parseTopic(topic: string): ParsedTopic | null {
  const match = TOPIC.exec(topic);
  if (!match) return null;
  const id = Number(match[2]);
  return Number.isSafeInteger(id) ? { kind: match[1] as TopicKind, id } : null;
}
