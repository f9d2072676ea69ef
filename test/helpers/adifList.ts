import type { TestServer } from './server.js';

/** The records (everything after <EOH>) of an ADIF document. */
export function adifRecords(document: string): string {
  return document.slice(document.search(/<eoh>/i) + 5).replace(/^\s+/, '');
}

/** The records of the v2 list's ADIF for `query`, every batch of 5000 followed by lastfetchedid. */
export async function v2AdifRecords(server: TestServer, token: string, query: Record<string, string>): Promise<string> {
  let records = '';
  for (let sinceId = 0; ;) {
    const params = new URLSearchParams({ ...query, format: 'adif', per_page: '5000', since_id: String(sinceId) });
    const page = (await server.request(`/api/v2/qso?${params}`, { token })).body.data;
    if (!page.exported) return records;
    records += adifRecords(page.adif);
    sinceId = page.lastfetchedid;
  }
}
