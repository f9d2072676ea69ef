// A world map drawn offline, for any page that wants one: Natural Earth outlines (world-atlas,
// served by this server under /assets/) through d3-geo's Equal Earth projection, and on top
// either Maidenhead squares or points (DXCC entities), each worked or confirmed (WorldMap), or
// whatever a page draws itself (MapFrame).
//
//   <WorldMap label="…" squares=${[{ grid: 'JO62', confirmed: true }]} />
//   <WorldMap label="…" points=${[{ id: 230, name: 'Germany', lat: 51, long: 10, confirmed: false }]} />
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { geoEqualEarth, geoGraticule10, geoPath } from 'd3-geo';
import { feature } from 'topojson-client';
import { squarePolygon } from './squares.js';

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

const state = (item) => (item.confirmed ? 'confirmed' : 'worked');

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

/** Maidenhead squares or DXCC entities (points), each worked or confirmed, on the world's outlines. */
export function WorldMap({ label, squares = [], points = [] }) {
  return html`<${MapFrame} label=${label} draw=${(path, projection) => html`
    ${squares.length ? html`<g class="squares">${squares.map((s) => html`<path class=${state(s)} data-grid=${s.grid} d=${path(squarePolygon(s.grid))}>
      <title>${s.grid}${s.confirmed ? ' (confirmed)' : ''}</title></path>`)}</g>` : null}
    ${points.length ? html`<g class="points">${points.map((p) => {
      const [x, y] = projection([p.long, p.lat]);
      return html`<circle class=${state(p)} data-id=${p.id} cx=${x.toFixed(1)} cy=${y.toFixed(1)} r="4.5"><title>${p.name}${p.confirmed ? ' (confirmed)' : ''}</title></circle>`;
    })}</g>` : null}`} />`;
}
