// "Am I in the log?": the band and mode slots where a call is in the log (/api/public/{slug}/search).
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { utc } from '../format.js';

function Slots({ answer, showTimes }) {
  if (!answer.found) return html`<p class="result" role="status">${answer.call} is not in the log.</p>`;
  return html`<div class="result" role="status"><p>${answer.call} is in the log:</p>
    <div class="scroll"><table class="slots">
      <thead><tr><th>Band</th><th>Mode</th><th class="num">QSOs</th><th>Confirmed</th>${showTimes ? html`<th>UTC</th>` : null}</tr></thead>
      <tbody>${answer.slots.map((s) => html`<tr><td>${s.band}</td><td>${s.mode}</td><td class="num">${s.qsos}</td><td>${s.confirmed ? 'yes' : 'no'}</td>
        ${showTimes ? html`<td class="times">${(s.times || []).map(utc).join(', ')}</td>` : null}</tr>`)}</tbody>
    </table></div></div>`;
}

export function Search({ base, showTimes }) {
  const [call, setCall] = useState('');
  const [answer, setAnswer] = useState(null);
  const [error, setError] = useState(null);
  const submit = async (event) => {
    event.preventDefault();
    setError(null);
    const response = await fetch(base + '/search?call=' + encodeURIComponent(call.trim()));
    const body = await response.json().catch(() => ({}));
    if (!response.ok) {
      setAnswer(null);
      setError(body.error ? body.error.message : 'HTTP ' + response.status);
      return;
    }
    setAnswer(body.data);
  };
  return html`<section class="panel search"><form class="find" onSubmit=${submit} role="search">
      <label>Am I in the log? <input name="call" value=${call} onInput=${(e) => setCall(e.currentTarget.value)}
        placeholder="your call" autocomplete="off" autocapitalize="characters" maxlength="20" required /></label>
      <button type="submit">Search</button></form>
    ${error ? html`<p class="error" role="alert">${error}</p>` : null}
    ${answer ? html`<${Slots} answer=${answer} showTimes=${showTimes} />` : null}</section>`;
}
