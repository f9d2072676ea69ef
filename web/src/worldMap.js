// A world map drawn offline: Natural Earth outlines (world-atlas, served by this server) through
// d3-geo, and the worked and confirmed Maidenhead squares (4 characters: 2° × 1°) on top.
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { geoEqualEarth, geoGraticule10, geoPath } from 'd3-geo';
import { feature } from 'topojson-client';

const WIDTH = 960;
const HEIGHT = 470;
let outlines = null;

function countries() {
  outlines ??= fetch('/assets/countries-110m.json').then((r) => {
    if (!r.ok) throw new Error('The map outlines could not be loaded (HTTP ' + r.status + ')');
    return r.json();
  }).then((topology) => feature(topology, topology.objects.countries));
  return outlines;
}

/** "JO62" → the square's polygon, its ring clockwise as d3-geo wants an exterior ring. */
export function squarePolygon(grid) {
  const g = grid.toUpperCase();
  const west = (g.charCodeAt(0) - 65) * 20 - 180 + Number(g[2]) * 2;
  const south = (g.charCodeAt(1) - 65) * 10 - 90 + Number(g[3]);
  return { type: 'Polygon', coordinates: [[[west, south], [west, south + 1], [west + 2, south + 1], [west + 2, south], [west, south]]] };
}

/** The world's outlines as an SVG; `draw(path, projection)` returns what goes on top of them. */
export function MapFrame({ label, draw }) {
  const [land, setLand] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => { countries().then(setLand, setError); }, []);
  if (error) return html`<p class="error" role="alert">${error.message}</p>`;
  if (!land) return html`<p>Drawing the map…</p>`;
  const projection = geoEqualEarth().fitSize([WIDTH, HEIGHT], { type: 'Sphere' });
  const path = geoPath(projection);
  return html`<svg class="map" viewBox=${`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label=${label}>
    <path class="sphere" d=${path({ type: 'Sphere' })} />
    <path class="graticule" d=${path(geoGraticule10())} />
    <g class="countries">${land.features.map((f) => html`<path d=${path(f)}><title>${f.properties.name}</title></path>`)}</g>
    ${draw(path, projection)}
  </svg>`;
}

export function WorldMap({ worked, confirmed }) {
  const confirmedSet = new Set(confirmed);
  return html`<${MapFrame} label=${`World map: ${worked.length} squares worked, ${confirmed.length} confirmed`}
    draw=${(path) => html`<g class="squares">${worked.map((grid) => html`<path class=${confirmedSet.has(grid) ? 'confirmed' : 'worked'} data-grid=${grid} d=${path(squarePolygon(grid))}><title>${grid}${confirmedSet.has(grid) ? ' (confirmed)' : ''}</title></path>`)}</g>`} />`;
}
