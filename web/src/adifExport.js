// The ADIF export of a filter: the v2 list's ADIF batches (5000 records each, chained by
// lastfetchedid) joined into one document, offered as a download.
import { api } from './session.js';

export async function exportAdif(query, progress) {
  const parts = [];
  let sinceId = 0;
  let done = 0;
  for (;;) {
    const batch = new URLSearchParams(query);
    batch.set('format', 'adif');
    batch.set('per_page', '5000');
    batch.set('since_id', String(sinceId));
    const page = await api('/api/v2/qso?' + batch);
    if (!page.exported) break;
    // Every batch is a whole document: the first one's header stays, the others' records follow it.
    parts.push(parts.length ? page.adif.slice(page.adif.search(/<eoh>/i) + 5) : page.adif);
    sinceId = page.lastfetchedid;
    done += page.exported;
    progress(done);
  }
  if (!done) throw new Error('No QSOs match the filter: nothing to export.');
  const url = URL.createObjectURL(new Blob(parts, { type: 'text/plain' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = 'logbook-' + new Date().toISOString().slice(0, 10) + '.adi';
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
  return done;
}
