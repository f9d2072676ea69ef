// The form of one QSO, for entering one by hand and for editing one.
import { html } from 'htm/preact';
import { BANDS, MODES, TEXT_FIELDS } from './qsoFields.js';

// Text, not the browser's date and time pickers, which show the viewer's locale (12-hour clocks,
// month first): a log is written in UTC as YYYY-MM-DD and HH:MM.
export const DATE = { placeholder: 'YYYY-MM-DD', pattern: '\\d{4}-\\d{2}-\\d{2}', inputmode: 'numeric', autocomplete: 'off' };
export const TIME = { placeholder: 'HH:MM', pattern: '\\d{2}:?\\d{2}(:?\\d{2})?', inputmode: 'numeric', autocomplete: 'off' };

const Input = ({ form, name, label, ...rest }) => html`<label>${label}<input ...${form.bind(name)} ...${rest} /></label>`;

export function QsoForm({ form, stations, onSubmit, children, submitLabel }) {
  return html`<form class="qso" onSubmit=${onSubmit}>
    <div class="grid">
      <${Input} form=${form} name="date" label="Date (UTC)" required ...${DATE} />
      <${Input} form=${form} name="time" label="Time (UTC)" required ...${TIME} />
      <${Input} form=${form} name="call" label="Callsign" required autocapitalize="characters" autocomplete="off" />
      <${Input} form=${form} name="band" label="Band" list="bands" required />
      <${Input} form=${form} name="mode" label="Mode" list="modes" required />
      <${Input} form=${form} name="freq" label="Frequency (MHz)" inputmode="decimal" />
    </div>
    ${children}
    <div class="grid">
      ${TEXT_FIELDS.filter((f) => f[2]).map(([name, label]) => html`<${Input} form=${form} name=${name} label=${label} />`)}
      <label>Station location <select ...${form.bind('station_profile_id')} onChange=${form.bind('station_profile_id').onInput}>
        ${stations.map((s) => html`<option value=${String(s.id)}>${s.name} (${s.callsign})</option>`)}</select></label>
    </div>
    <details><summary>More fields</summary><div class="grid">
      <${Input} form=${form} name="time_off" label="Time off (UTC)" ...${TIME} />
      <${Input} form=${form} name="freq_rx" label="RX frequency (MHz)" inputmode="decimal" />
      ${TEXT_FIELDS.filter((f) => !f[2]).map(([name, label]) => html`<${Input} form=${form} name=${name} label=${label} />`)}
    </div></details>
    <datalist id="bands">${BANDS.map((b) => html`<option value=${b} />`)}</datalist>
    <datalist id="modes">${MODES.map((m) => html`<option value=${m} />`)}</datalist>
    <div class="buttons"><button type="submit">${submitLabel}</button></div>
  </form>`;
}
