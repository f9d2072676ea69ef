// v2 tokens and v1 keys of the signed-in user (or of the club acted as): create (the value is
// shown once), list, revoke. The app's own /app/ endpoints, since making a token needs a session.
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { appCall } from '../session.js';
import { EmptyRow, ErrorLine, useLoad } from '../ui.js';
import { utc } from '../format.js';

function Secret({ label, value, onClose }) {
  const [copied, setCopied] = useState('');
  const copy = () => navigator.clipboard.writeText(value).then(() => setCopied('Copied.'), () => setCopied('Copy failed: select the text and copy it.'));
  return html`<div class="secret" role="region" aria-label=${label}>
    <p><strong>${label}</strong>: shown only now. Copy it; it cannot be shown again.</p>
    <p><code class="value" data-secret>${value}</code></p>
    <div class="buttons"><button type="button" onClick=${copy}>Copy</button><button type="button" onClick=${onClose}>Done</button>
      <span role="status">${copied}</span></div>
  </div>`;
}

function NewToken({ onCreated }) {
  const scopes = useLoad(() => appCall('/app/scopes'), []);
  const [error, setError] = useState(null);
  const submit = async (e) => {
    e.preventDefault();
    const form = e.currentTarget;
    const chosen = [...form.querySelectorAll('input[name=scope]:checked')].map((i) => i.value);
    if (!chosen.length) return setError(new Error('Choose at least one scope.'));
    try {
      onCreated(await appCall('/app/tokens', { method: 'POST', json: { name: form.token_name.value.trim(), scopes: chosen, expires: form.expires.value } }));
      form.reset();
      setError(null);
    } catch (failure) {
      setError(failure);
    }
  };
  return html`<form class="panel" onSubmit=${submit} aria-label="New API token">
    <h2>New API token (v2)</h2>
    <label>Token name <input name="token_name" required maxlength="100" /></label>
    <fieldset><legend>Scopes</legend><div class="scopes">
      ${(scopes.data ? scopes.data.scopes : []).map((s) => html`<label class=${'check' + (s.grantable === false ? ' muted' : '')} title=${s.grantable === false ? 'Not yours to grant here' : ''}>
        <input type="checkbox" name="scope" value=${s.name} disabled=${s.grantable === false} /> <span><code>${s.name}</code> ${s.description}</span></label>`)}
    </div></fieldset>
    <label>Expires <select name="expires">
      <option value="30">in 30 days</option><option value="90">in 90 days</option><option value="365">in 365 days</option><option value="never">never</option>
    </select></label>
    <div class="buttons"><button type="submit">Create token</button></div>
    <${ErrorLine} error=${error || scopes.error} />
  </form>`;
}

function revoke(path, what, reload, setError) {
  if (!confirm('Revoke ' + what + '? Programs using it stop working at once.')) return;
  appCall(path, { method: 'DELETE' }).then(reload, setError);
}

export function Tokens() {
  const tokens = useLoad(() => appCall('/app/tokens'), []);
  const keys = useLoad(() => appCall('/app/keys'), []);
  const [secret, setSecret] = useState(null);
  const [error, setError] = useState(null);
  const newKey = (rights) => appCall('/app/keys', { method: 'POST', json: { rights } })
    .then((key) => { setSecret({ label: 'New v1 API key', value: key.key }); keys.reload(); }, setError);
  return html`<section>
    <h1>API tokens</h1>
    ${secret ? html`<${Secret} ...${secret} onClose=${() => setSecret(null)} />` : null}
    <${ErrorLine} error=${error || tokens.error || keys.error} />
    <div class="scroll"><table aria-label="API tokens (v2)">
      <thead><tr><th>Name</th><th>Scopes</th><th>Created</th><th>Last used</th><th>Expires</th><th></th></tr></thead>
      <tbody>${(tokens.data ? tokens.data.tokens : []).map((t) => html`<tr>
        <td>${t.name}</td><td class="scopelist">${t.scopes.join(' ')}</td><td>${utc(t.created_at)}</td><td>${t.last_used_at ? utc(t.last_used_at) : 'never'}</td>
        <td>${t.expires_at ? utc(t.expires_at) : 'never'}</td>
        <td><button type="button" class="danger" aria-label=${'Revoke ' + t.name} onClick=${() => revoke('/app/tokens/' + t.id, 'the token ' + t.name, tokens.reload, setError)}>Revoke</button></td></tr>`)}
        <${EmptyRow} rows=${tokens.data && tokens.data.tokens} columns="6">No tokens yet. A logging program or sync tool needs one: create it below with the scopes it asks for.<//></tbody>
    </table></div>
    <${NewToken} onCreated=${(t) => { setSecret({ label: 'New token ' + t.name, value: t.token }); tokens.reload(); }} />
    <h2>API keys (v1)</h2>
    <div class="scroll"><table aria-label="API keys (v1)">
      <thead><tr><th>Key</th><th>Rights</th><th>Created</th><th>Last used</th><th></th></tr></thead>
      <tbody>${(keys.data ? keys.data.keys : []).map((k) => html`<tr>
        <td><code>${k.key_hint}</code></td><td>${k.rights === 'rw' ? 'read/write' : 'read-only'}</td><td>${utc(k.created_at)}</td><td>${k.last_used_at ? utc(k.last_used_at) : 'never'}</td>
        <td><button type="button" class="danger" aria-label=${'Revoke key ' + k.key_hint} onClick=${() => revoke('/app/keys/' + k.id, 'the key ' + k.key_hint, keys.reload, setError)}>Revoke</button></td></tr>`)}
        <${EmptyRow} rows=${keys.data && keys.data.keys} columns="5">No keys yet. Programs made for the v1 API (WaveLogGate, older loggers) ask for one.<//></tbody>
    </table></div>
    <div class="buttons"><button type="button" onClick=${() => newKey('r')}>New read-only key</button><button type="button" onClick=${() => newKey('rw')}>New read/write key</button></div>
  </section>`;
}
