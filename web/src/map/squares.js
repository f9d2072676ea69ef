// Maidenhead squares as GeoJSON for the world map.

/** "JO62" → the square (2° × 1°) as a polygon, its ring clockwise as d3-geo wants an exterior ring. */
export function squarePolygon(grid) {
  const g = grid.toUpperCase();
  const west = (g.charCodeAt(0) - 65) * 20 - 180 + Number(g[2]) * 2;
  const south = (g.charCodeAt(1) - 65) * 10 - 90 + Number(g[3]);
  return { type: 'Polygon', coordinates: [[[west, south], [west, south + 1], [west + 2, south + 1], [west + 2, south], [west, south]]] };
}
