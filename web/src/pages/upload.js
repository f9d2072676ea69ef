// Uploading a log file: the file streams to POST /api/v2/qso?async=true (upload progress from
// the browser), then the import job is followed (GET /api/v2/import/{id}) to its summary.
import { html } from 'htm/preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, bearer } from '../session.js';
import { ErrorLine } from '../ui.js';

const COUNTS = ['parsed', 'imported', 'confirmed', 'unchanged', 'unmatched', 'ambiguous', 'skipped', 'failed'];

/** "record 12, line 340: not imported: …" → the kind ("not imported: …") and the place. */
function splitMessage(message) {
  const match = /^(record \d+(?:, line \d+)?): (.*)$/.exec(message);
  return match ? { place: match[1], kind: match[2] } : { place: '', kind: message };
}

function Summary({ summary, verdict }) {
  const groups = new Map();
  for (const message of summary.messages || []) {
    const { place, kind } = splitMessage(message);
    if (!groups.has(kind)) groups.set(kind, []);
    if (place) groups.get(kind).push(place);
  }
  return html`<div id="upload-summary" class="summary">
    <h2>${verdict}</h2>
    <dl>${COUNTS.filter((k) => typeof summary[k] === 'number').map((k) => html`<dt>${summary.dryrun && k === 'imported' ? 'would import' : k}</dt><dd data-count=${k}>${summary[k]}</dd>`)}</dl>
    ${groups.size ? html`<h3>Messages</h3><ul id="summary-messages">${[...groups].map(([kind, places]) => html`
      <li class=${/no stored QSO|unmatched|matches no/i.test(kind) ? 'unmatched' : ''}>${kind}${places.length ? ' — ' + places.length + '×: ' + places.join('; ') : ''}</li>`)}</ul>` : null}
  </div>`;
}

export function Upload({ stations }) {
  const [file, setFile] = useState(null);
  const [over, setOver] = useState(false);
  const [sent, setSent] = useState(null);
  const [job, setJob] = useState(null);
  const [error, setError] = useState(null);
  const poll = useRef(null);
  useEffect(() => () => clearInterval(poll.current), []);
  const active = stations.find((s) => s.active) || stations[0];

  const follow = (started) => {
    clearInterval(poll.current);
    poll.current = setInterval(async () => {
      try {
        const now = await api('/api/v2/import/' + started.id);
        setJob(now);
        if (now.state !== 'queued' && now.state !== 'running') {
          clearInterval(poll.current);
          // One verdict: the summary's heading when there is a summary, else the error line.
          if (now.state !== 'done' && !now.summary) setError(new Error('Import ' + now.state + ': ' + (now.error || '')));
        }
      } catch (failure) { setError(failure); }
    }, 500);
  };

  const submit = (e) => {
    e.preventDefault();
    setError(null);
    setJob(null);
    if (!file) return setError(new Error('Choose a file first.'));
    const form = e.currentTarget;
    const query = new URLSearchParams({ station_profile_id: form.station_profile_id.value, async: 'true' });
    if (form.dryrun.checked) query.set('dryrun', 'true');
    // Empty choices are left to the server: it decides by what the file is (a download or not).
    if (form.insert_unmatched.value) query.set('insert_unmatched', form.insert_unmatched.value);
    if (form.on_duplicate.value) query.set('on_duplicate', form.on_duplicate.value);
    if (form.strict_callsign.checked) query.set('strict_callsign', 'true');
    const xhr = new XMLHttpRequest();
    xhr.open('POST', '/api/v2/qso?' + query);
    for (const [name, value] of Object.entries(bearer())) xhr.setRequestHeader(name, value);
    xhr.setRequestHeader('Content-Type', 'application/octet-stream');
    if (/\.gz$/i.test(file.name)) xhr.setRequestHeader('Content-Encoding', 'gzip');
    setSent(0);
    xhr.upload.onprogress = (p) => { if (p.lengthComputable) setSent(Math.round((100 * p.loaded) / p.total)); };
    xhr.onload = () => {
      let body = {};
      try { body = JSON.parse(xhr.responseText); } catch { /* an answer without JSON: the status says enough */ }
      if (xhr.status !== 202) return setError(new Error('Upload refused: ' + ((body.error && body.error.message) || xhr.statusText)));
      setSent(100);
      setJob(body.data);
      follow(body.data);
    };
    xhr.onerror = () => setError(new Error('The upload failed: the connection was lost.'));
    xhr.send(file);
  };
  const cancel = () => api('/api/v2/import/' + job.id, { method: 'DELETE' }).catch(setError);
  const running = job && (job.state === 'queued' || job.state === 'running');
  const share = job ? (job.state === 'done' ? 100 : job.bytes_total ? Math.round((100 * job.bytes_done) / job.bytes_total) : 0) : 0;
  const pick = (chosen) => setFile(chosen || null);

  return html`<section>
    <h1>Upload a log</h1>
    <form id="upload-form" onSubmit=${submit}>
      <label>Station location <select id="upload-station" name="station_profile_id" required value=${active ? String(active.id) : ''}>
        ${stations.map((s) => html`<option value=${String(s.id)}>${s.name} (${s.callsign})</option>`)}</select></label>
      <label class="check"><input id="upload-dryrun" name="dryrun" type="checkbox" /> Dry run (check only, store nothing)</label>
      <label>Records of a download that match no QSO in the log <select id="upload-unmatched" name="insert_unmatched">
        <option value="">as the download decides</option>
        <option value="true">store them as new QSOs</option>
        <option value="false">only report them</option>
      </select><small class="hint">As the download decides: QRZ and Club Log downloads, and any download into an empty location, store them; LoTW and eQSL only report them.</small></label>
      <label>Records already in the log <select id="upload-duplicates" name="on_duplicate">
        <option value="">as the file decides</option>
        <option value="skip">skip them</option>
        <option value="confirm">apply their confirmations</option>
        <option value="merge">apply their confirmations and fill empty fields</option>
      </select><small class="hint">As the file decides: a download (LoTW, eQSL, QRZ, Club Log) applies its confirmations; any other file skips them.</small></label>
      <label class="check"><input id="upload-strict" name="strict_callsign" type="checkbox" /> Refuse records of another station callsign than the location's</label>
      <label id="drop" class=${'drop' + (over ? ' over' : '')}
        onDragOver=${(e) => { e.preventDefault(); setOver(true); }} onDragLeave=${() => setOver(false)}
        onDrop=${(e) => { e.preventDefault(); setOver(false); pick(e.dataTransfer.files[0]); }}>
        Choose or drop an ADIF / ADX file (.adi, .adx, .gz)
        <input id="upload-file" type="file" accept=".adi,.adif,.adx,.xml,.gz,.txt" onChange=${(e) => pick(e.currentTarget.files[0])} />
      </label>
      <p id="upload-file-name">${file ? file.name + ' (' + Math.ceil(file.size / 1024) + ' KiB)' : ''}</p>
      <button id="upload-start" type="submit">Upload</button>
    </form>
    ${sent !== null ? html`<div id="upload-progress">
      <label>Upload <progress id="upload-bar" max="100" value=${sent}></progress> <span>${sent} %</span></label>
      <label>Processing <progress id="process-bar" max="100" value=${share}></progress>
        <span id="process-text">${job ? job.state + ': ' + job.records_done + ' records' + (job.eta_seconds !== null && running ? ', about ' + job.eta_seconds + ' s left' : '') : ''}</span></label>
      ${running ? html`<button type="button" onClick=${cancel}>Cancel import</button>` : null}
    </div>` : null}
    <${ErrorLine} error=${error} />
    ${job && job.summary ? html`<${Summary} summary=${{ ...job.summary, dryrun: job.dryrun }}
      verdict=${job.state !== 'done' ? 'Import ' + job.state + ': ' + (job.error || '') : job.dryrun ? 'Dry run: nothing was stored' : 'Import finished'} />` : null}
  </section>`;
}
