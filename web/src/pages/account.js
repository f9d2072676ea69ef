// Changing one's password; the server then ends every session, so sign-in comes back.
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { changePassword } from '../session.js';
import { ErrorLine } from '../ui.js';

export function Account({ me }) {
  const [error, setError] = useState(null);
  const submit = async (e) => {
    e.preventDefault();
    const form = e.currentTarget;
    if (form.new_password.value !== form.repeat.value) return setError(new Error('The two new passwords differ.'));
    try {
      await changePassword(form.current_password.value, form.new_password.value);
    } catch (failure) {
      setError(failure);
    }
  };
  return html`<section class="narrow">
    <h1>Change password</h1>
    <p>Signed in as <strong>${me.user.username}</strong> (${me.user.callsign}). Changing the password signs you out everywhere.</p>
    <form onSubmit=${submit}>
      <label>Current password <input name="current_password" type="password" autocomplete="current-password" required /></label>
      <label>New password <input name="new_password" type="password" autocomplete="new-password" minlength="10" required /></label>
      <label>New password again <input name="repeat" type="password" autocomplete="new-password" minlength="10" required /></label>
      <button type="submit">Change password</button>
    </form>
    <${ErrorLine} error=${error} />
  </section>`;
}
