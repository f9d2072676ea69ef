import { normalizeGrid } from './grid.js';

/**
 * Positions and distances from Maidenhead locators. A locator names an area; its position is
 * the area's centre, as the original's `qra2latlong` takes it.
 */

export interface Position {
  lat: number;
  /** East positive. */
  lng: number;
}

/** Degrees of longitude and latitude spanned by each pair of characters. */
const STEPS: ReadonlyArray<readonly [lng: number, lat: number, base: string]> = [
  [20, 10, 'A'],
  [2, 1, '0'],
  [2 / 24, 1 / 24, 'A'],
  [2 / 240, 1 / 240, '0'],
  [2 / 240 / 24, 1 / 240 / 24, 'A'],
];

/** The centre of a 2–10 character locator, or null when it is not one. */
export function gridCentre(raw: string): Position | null {
  const grid = normalizeGrid(raw);
  if (grid === null) return null;
  let lng = -180;
  let lat = -90;
  let size: readonly [number, number] = [360, 180];
  for (let i = 0; i < grid.length; i += 2) {
    const [lngStep, latStep, base] = STEPS[i / 2]!;
    lng += (grid.charCodeAt(i) - base.charCodeAt(0)) * lngStep;
    lat += (grid.charCodeAt(i + 1) - base.charCodeAt(0)) * latStep;
    size = [lngStep, latStep];
  }
  return { lat: lat + size[1] / 2, lng: lng + size[0] / 2 };
}

const EARTH_RADIUS_KM = 6371;
const RADIANS = Math.PI / 180;

/** Great-circle distance in km along the short path, or the long path the other way round. */
export function distanceKm(from: Position, to: Position, longPath = false): number {
  const dLat = (to.lat - from.lat) * RADIANS;
  const dLng = (to.lng - from.lng) * RADIANS;
  const a = Math.sin(dLat / 2) ** 2 + Math.cos(from.lat * RADIANS) * Math.cos(to.lat * RADIANS) * Math.sin(dLng / 2) ** 2;
  const short = 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(a)));
  return longPath ? 2 * Math.PI * EARTH_RADIUS_KM - short : short;
}
