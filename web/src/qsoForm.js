// The form of one QSO, for entering one by hand and for editing one.
import { html } from 'htm/preact';
import { BANDS, MODES, TEXT_FIELDS } from './qsoFields.js';

const Input = ({ form, name, label, ...rest }) => html`<label>${label}<input ...${form.bind(name)} ...${rest} /></label>`;

export function QsoForm({ form, stations, onSubmit, children, submitLabel, onCall }) {
  const call = form.bind('call');
  const callInput = (e) => { call.onInput(e); if (onCall) onCall(e.currentTarget.value); };
  return html`<form class="qso" onSubmit=${onSubmit}>
    <div class="grid">
      <${Input} form=${form} name="date" label="Date (UTC)" type="date" required />
      <${Input} form=${form} name="time" label="Time (UTC)" type="time" required />
      <label>Callsign <input ...${call} onInput=${callInput} required autocapitalize="characters" autocomplete="off" /></label>
      <${Input} form=${form} name="band" label="Band" list="bands" required />
      <${Input} form=${form} name="mode" label="Mode" list="modes" required />
      <${Input} form=${form} name="freq" label="Frequency (MHz)" inputmode="decimal" />
      ${TEXT_FIELDS.filter((f) => f[2]).map(([name, label]) => html`<${Input} form=${form} name=${name} label=${label} />`)}
      <label>Station location <select ...${form.bind('station_profile_id')} onChange=${form.bind('station_profile_id').onInput}>
        ${stations.map((s) => html`<option value=${String(s.id)}>${s.name} (${s.callsign})</option>`)}</select></label>
    </div>
    ${children}
    <details><summary>More fields</summary><div class="grid">
      <${Input} form=${form} name="time_off" label="Time off (UTC)" type="time" />
      <${Input} form=${form} name="freq_rx" label="RX frequency (MHz)" inputmode="decimal" />
      ${TEXT_FIELDS.filter((f) => !f[2]).map(([name, label]) => html`<${Input} form=${form} name=${name} label=${label} />`)}
    </div></details>
    <datalist id="bands">${BANDS.map((b) => html`<option value=${b} />`)}</datalist>
    <datalist id="modes">${MODES.map((m) => html`<option value=${m} />`)}</datalist>
    <div class="buttons"><button type="submit">${submitLabel}</button></div>
  </form>`;
}
