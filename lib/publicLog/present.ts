import { gridCentre, type Position } from '../adif/gridPosition.js';
import { dxccEntity } from '../dxcc/entities.js';
import type { PublicLogRows, PublishedLogbook, SearchSlotRow } from './repository.js';

/**
 * The public log's JSON: only what the owner published. Times and frequencies are left out
 * (not nulled) when hidden, so a client cannot tell a hidden value from a missing one by
 * accident and nothing hidden is ever in the text.
 */

export interface PublicQso {
  call: string;
  band: string;
  mode: string;
  time_on?: string;
  freq?: number | null;
}

export interface PublicLog {
  callsigns: string[];
  qsos: number;
  recent: PublicQso[];
  last_hour: Array<{ band: string; mode: string; qsos: number }>;
  banner: string;
  show_times: boolean;
  show_frequency: boolean;
  map: { stations: Position[]; worked: Array<Position & { qsos: number }> };
}

/** A locator's centre, else the DXCC entity's position (cty.csv), else null. */
function positionOf(grid: string, dxcc: number | null): Position | null {
  const centre = grid === '' ? null : gridCentre(grid);
  if (centre) return round(centre);
  const entity = dxcc === null ? undefined : dxccEntity(dxcc);
  return entity && entity.lat !== null && entity.long !== null ? round({ lat: entity.lat, lng: entity.long }) : null;
}

const round = (p: Position): Position => ({ lat: Math.round(p.lat * 1000) / 1000, lng: Math.round(p.lng * 1000) / 1000 });

export function presentPublicLog(logbook: PublishedLogbook, rows: PublicLogRows): PublicLog {
  const worked = new Map<string, Position & { qsos: number }>();
  for (const row of rows.worked) {
    const position = positionOf(row.grid, row.dxcc);
    if (!position) continue;
    const key = `${position.lat},${position.lng}`;
    const seen = worked.get(key);
    if (seen) seen.qsos += row.qsos;
    else worked.set(key, { ...position, qsos: row.qsos });
  }
  return {
    callsigns: [...new Set(logbook.stations.map((s) => s.callsign.toUpperCase()))],
    qsos: rows.count,
    recent: rows.recent.map((q) => {
      const qso: PublicQso = { call: q.call, band: q.band, mode: q.mode };
      if (logbook.showTimes) qso.time_on = q.time_on;
      if (logbook.showFrequency) qso.freq = q.freq === null ? null : Number(q.freq);
      return qso;
    }),
    last_hour: rows.lastHour,
    banner: logbook.banner,
    show_times: logbook.showTimes,
    show_frequency: logbook.showFrequency,
    map: {
      stations: logbook.stations.map((s) => positionOf(s.gridsquare, s.dxcc)).filter((p): p is Position => p !== null),
      worked: [...worked.values()],
    },
  };
}

export interface PublicSearch {
  call: string;
  found: boolean;
  slots: Array<{ band: string; mode: string; confirmed: boolean; qsos: number; times?: string[] }>;
}

export function presentSearch(logbook: PublishedLogbook, call: string, rows: SearchSlotRow[]): PublicSearch {
  return {
    call,
    found: rows.length > 0,
    slots: rows.map((r) => (logbook.showTimes
      ? { band: r.band, mode: r.mode, confirmed: r.confirmed, qsos: r.qsos, times: r.times }
      : { band: r.band, mode: r.mode, confirmed: r.confirmed, qsos: r.qsos })),
  };
}
