// Small pieces every page uses.
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { explain } from './format.js';

/** An error line read out by screen readers; nothing when there is no error. */
export const ErrorLine = ({ error }) => (error ? html`<p class="error" role="alert">${explain(error)}</p>` : null);

/** A table's one row when it has none, saying why and what to do: shown once `rows` has loaded (not null) empty. */
export const EmptyRow = ({ rows, columns, children }) => (rows && rows.length === 0 ? html`<tr class="empty"><td colspan=${columns} class="muted">${children}</td></tr>` : null);

/** Runs `load` when a dependency changes: {data, error, loading, reload}. */
export function useLoad(load, deps) {
  const [state, setState] = useState({ data: null, error: null, loading: true });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    load().then((data) => live && setState({ data, error: null, loading: false }), (error) => live && setState({ data: null, error, loading: false }));
    return () => { live = false; };
  }, [...deps, tick]);
  return { ...state, reload: () => setTick((n) => n + 1) };
}

/** Form state: values, a setter for an input's onInput, and a reset. */
export function useForm(initial) {
  const [values, setValues] = useState(initial);
  const bind = (name) => ({ name, value: values[name] ?? '', onInput: (e) => setValues((v) => ({ ...v, [name]: e.currentTarget.value })) });
  return { values, setValues, bind };
}
