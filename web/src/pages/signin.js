import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { signIn } from '../session.js';
import { ErrorLine } from '../ui.js';

export function SignIn({ startError, notice }) {
  const [error, setError] = useState(startError);
  const [busy, setBusy] = useState(false);
  const submit = async (e) => {
    e.preventDefault();
    const form = e.currentTarget;
    setBusy(true);
    setError(null);
    try {
      await signIn(form.username.value.trim(), form.password.value);
    } catch (failure) {
      setError(failure);
      form.password.value = '';
    } finally {
      setBusy(false);
    }
  };
  return html`<section class="narrow">
    <h1>Sign in</h1>
    ${notice ? html`<p class="notice" role="status">${notice}</p>` : null}
    <form onSubmit=${submit}>
      <label>Username <input name="username" autocomplete="username" required /></label>
      <label>Password <input name="password" type="password" autocomplete="current-password" required /></label>
      <button type="submit" disabled=${busy}>Sign in</button>
    </form>
    <${ErrorLine} error=${error} />
  </section>`;
}
