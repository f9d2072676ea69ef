// The browser app: one page per module under pages/, chosen by the address's #fragment; every
// datum comes from the public v2 API with the session's api_token (session.js).
import { render } from 'preact';
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { actAs, endedBecause, onSessionChange, restore, session, signOut, api } from './session.js';
import { SignIn } from './pages/signin.js';
import { Log } from './pages/log.js';
import { QsoEdit } from './pages/qsoEdit.js';
import { LogQso } from './pages/logQso.js';
import { Stations } from './pages/stations.js';
import { Logbooks } from './pages/logbooks.js';
import { Statistics } from './pages/statistics.js';
import { Tokens } from './pages/tokens.js';
import { Upload } from './pages/upload.js';
import { Live } from './pages/live.js';
import { Account } from './pages/account.js';

const PAGES = [
  ['log', 'Log', Log], ['new', 'Log a QSO', LogQso], ['upload', 'Upload', Upload], ['live', 'Live', Live],
  ['stations', 'Stations', Stations], ['logbooks', 'Logbooks', Logbooks], ['statistics', 'Statistics', Statistics],
  ['tokens', 'Tokens', Tokens], ['account', 'Password', Account],
];

const hashRoute = () => location.hash.replace(/^#/, '') || 'log';

function useRoute() {
  const [route, setRoute] = useState(hashRoute());
  useEffect(() => {
    const changed = () => setRoute(hashRoute());
    addEventListener('hashchange', changed);
    return () => removeEventListener('hashchange', changed);
  }, []);
  return route;
}

function ClubSwitch({ me }) {
  if (!me.clubs.length) return null;
  const value = me.acting_as ? String(me.acting_as.club_id) : '';
  const change = (e) => actAs(e.currentTarget.value ? Number(e.currentTarget.value) : null).catch((error) => alert(error.message));
  return html`<label class="club">Acting as
    <select value=${value} onChange=${change}>
      <option value="">${me.user.callsign} (myself)</option>
      ${me.clubs.map((c) => html`<option value=${String(c.club_id)}>${c.callsign} (club)</option>`)}
    </select></label>`;
}

function Shell({ me }) {
  const route = useRoute();
  const [stations, setStations] = useState(null);
  const [stationError, setStationError] = useState(null);
  const loadStations = () => api('/api/v2/station').then(setStations, setStationError);
  useEffect(() => { setStations(null); loadStations(); }, [me.api_token]);
  const [name, id] = route.split('/');
  const entry = PAGES.find(([key]) => key === name);
  let page;
  if (name === 'qso' && id) page = html`<${QsoEdit} id=${Number(id)} stations=${stations || []} />`;
  else if (entry) page = html`<${entry[2]} stations=${stations || []} reloadStations=${loadStations} me=${me} />`;
  else page = html`<p>No such page. <a href="#log">Go to the log</a>.</p>`;
  const who = me.acting_as ? me.acting_as.callsign + ' (club, operator ' + me.user.callsign + ')' : me.user.callsign;
  return html`
    <header>
      <strong class="brand">Logbook</strong>
      <nav aria-label="Pages">
        ${PAGES.map(([key, label]) => html`<a href=${'#' + key} aria-current=${key === name ? 'page' : undefined}>${label}</a>`)}
        <a href="/api-docs">API</a>
      </nav>
      <div class="who"><span id="who">${who}</span><${ClubSwitch} me=${me} />
        <button type="button" onClick=${() => signOut().then(() => { location.hash = ''; })}>Sign out</button></div>
    </header>
    <main>${stationError ? html`<p class="error" role="alert">Station locations could not be loaded: ${stationError.message}</p>` : null}
      ${stations === null && !stationError ? html`<p>Loading…</p>` : page}</main>`;
}

function App() {
  const [me, setMe] = useState(session());
  const [ready, setReady] = useState(false);
  const [error, setError] = useState(null);
  useEffect(() => {
    const off = onSessionChange(setMe);
    restore().then(() => setReady(true), (e) => { setError(e); setReady(true); });
    return off;
  }, []);
  if (!ready) return html`<main><p>Loading…</p></main>`;
  if (!me) return html`<header><strong class="brand">Logbook</strong></header><main><${SignIn} startError=${error} notice=${endedBecause()} /></main>`;
  return html`<${Shell} me=${me} />`;
}

render(html`<${App} />`, document.getElementById('app'));
