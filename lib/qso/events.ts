import type { ImportSummary } from '../import/types.js';
import { stationTopic, userTopic } from '../live/topics.js';
import type { Services } from '../services.js';

/** What browsers watching a station location or a user's logbook learn about a change. */
export type QsoEvent =
  | { type: 'qso_created' | 'qso_updated' | 'qso_deleted'; qso_id: number; station_id: number }
  | { type: 'qso_imported'; station_id: number; imported: number; confirmed?: number };

/**
 * The one event of a bulk import (not one per QSO): rows stored, and `confirmed` when it changed
 * stored QSOs (confirm and merge policies). null when it changed nothing.
 */
export function importEvent(stationId: number, summary: ImportSummary): QsoEvent | null {
  if (summary.imported === 0 && summary.confirmed === 0) return null;
  const event: QsoEvent = { type: 'qso_imported', station_id: stationId, imported: summary.imported };
  if (summary.confirmed > 0) event.confirmed = summary.confirmed;
  return event;
}

/**
 * Tells the live-update worker about a change, on the station's topic (and those of
 * `otherStationIds`, e.g. the station a QSO moved away from) and the owner's, and the public logs
 * over those locations. Fire and forget:
 * a missing or failing worker must never fail or slow the request.
 */
export function publishQsoEvent(services: Pick<Services, 'events' | 'logger'>, ownerId: number, event: QsoEvent, otherStationIds: number[] = []): void {
  const stationIds = [event.station_id, ...otherStationIds];
  // The public logs over these locations push what they publish (lib/publicLog/pushes.ts), never this event.
  services.events.qsosChanged?.(stationIds);
  for (const topic of stationIds.map(stationTopic).concat(userTopic(ownerId))) {
    try {
      services.events.publish(topic, event);
    } catch (error) {
      services.logger.warn('live update not published', { topic, error: (error as Error).message });
    }
  }
}
