import type { Test } from 'tap';
import type { TestServer } from './server.js';
import { createOperator, type Operator } from './fixtures.js';
import { createStation } from '../../lib/accounts/stations.js';
import { presentQso, qsoSelectList, type QsoRow } from '../../lib/qso/present.js';
import { lotwReport } from '../import/downloadFixtures.js';
import { seededRandom as random } from './random.js';

/**
 * Sync clients against a log that changes while they read it: imports (small batches, so their
 * transactions draw ids long before they commit), single and bulk creates, edits, moves between
 * locations, LoTW reports merged into stored QSOs, and deletions, in two users' logs at once,
 * with seeded timings. At the end a feed follower's mirror must equal the log exactly, and a
 * since_id pager must have seen every stored QSO exactly once. Without the commit-safe cut the
 * mirrors lose changes: with a cut that ignores the running writers (pg_snapshot_xmax and the
 * sequence alone) the feed mirrors differ from the log in every seed (checked 2026-11-25).
 */

type Change = { change: 'upsert' | 'delete'; id: number; station_id: number; qso: Record<string, unknown> | null };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let serial = 0;
/** A QSO no other QSO of the run duplicates: a minute of its own from 2024 on, however many seeds run. */
function fields(): Record<string, string> {
  serial++;
  const time = new Date(Date.UTC(2024, 0, 1) + serial * 60_000).toISOString();
  return {
    call: `K${serial}X`, band: '20m', mode: 'CW',
    qso_date: time.slice(0, 10), time_on: `${time.slice(11, 13)}${time.slice(14, 16)}00`,
  };
}

function adif(count: number): string {
  let text = 'made for a sync test <EOH>\n';
  for (let i = 0; i < count; i++) {
    text += Object.entries(fields()).map(([name, value]) => `<${name}:${value.length}>${value}`).join(' ') + ' <EOR>\n';
  }
  return text;
}

interface Log { op: Operator; stations: number[]; token: string }

/**
 * Every LOTW_EVERY-th operation is a LoTW report whatever the draw: the draws are shared with the
 * clients, so which operations a seed makes depends on timings, and a run without a report
 * (seed 2 once, 2026-11-28) would check no merge at all.
 */
const LOTW_EVERY = 10;
/** The draw that picks the LoTW report among the operations below. */
const LOTW_REPORT = 0.9;

async function writers(server: TestServer, logs: Log[], next: () => number, until: () => boolean): Promise<void> {
  let count = 0;
  const post = (log: Log, json: unknown) => server.request('/api/v2/qso', { method: 'POST', token: log.token, json });
  const pick = <T>(list: T[]): T => list[Math.floor(next() * list.length)]!;
  const ids = async (log: Log): Promise<number[]> =>
    (await server.db.pool.query<{ id: string }>('SELECT id FROM qso WHERE station_id = ANY($1::int[]) ORDER BY random() LIMIT 5', [log.stations])).rows.map((r) => Number(r.id));
  const one = async (): Promise<void> => {
    const log = pick(logs);
    const station = pick(log.stations);
    const what = ++count % LOTW_EVERY === 0 ? LOTW_REPORT : next();
    if (what < 0.2) {
      await post(log, { import_type: 'adif', station_profile_id: station, adif: adif(50 + Math.floor(next() * 200)) });
    } else if (what < 0.45) {
      await post(log, { station_profile_id: station, ...fields() });
    } else if (what < 0.6) {
      await post(log, { station_profile_id: station, qsos: Array.from({ length: 1 + Math.floor(next() * 20) }, () => fields()) });
    } else if (what < 0.85) {
      for (const id of (await ids(log)).slice(0, 2)) {
        const change = next() < 0.5 ? { comment: `edit ${serial++}` } : { station_profile_id: pick(log.stations) };
        await server.request(`/api/v2/qso/${id}`, { method: 'PATCH', token: log.token, json: change });
      }
    } else if (what < 0.93) {
      // A LoTW report confirming some of a location's QSOs: the merge writes them in place.
      const { rows } = await server.db.pool.query<{ call: string; date: string; time: string }>(
        `SELECT call, to_char(time_on, 'YYYYMMDD') AS date, to_char(time_on, 'HH24MI') AS time FROM qso
          WHERE station_id = $1 AND lotw_qsl_rcvd IS DISTINCT FROM 'Y' ORDER BY random() LIMIT 3`, [station]);
      const report = lotwReport(log.op.callsign, rows.map((row) => ({ ...row, band: '20M', mode: 'CW', qslrdate: `202403${String(1 + (serial++ % 28)).padStart(2, '0')}` })));
      await post(log, { import_type: 'adif', station_profile_id: station, adif: report });
    } else {
      const [id] = await ids(log);
      if (id !== undefined) await server.request(`/api/v2/qso/${id}`, { method: 'DELETE', token: log.token });
    }
    await sleep(next() * 15);
  };
  const lane = async () => {
    while (!until()) await one();
  };
  await Promise.all([lane(), lane(), lane(), lane()]);
}

/** A feed follower's mirror of one log. */
async function follower(server: TestServer, log: Log, next: () => number, done: () => boolean) {
  const mirror = new Map<number, Record<string, unknown>>();
  let cursor: string | null = null;
  for (;;) {
    const finished = done();
    const res = await server.request(`/api/v2/qso/changes?per_page=${1 + Math.floor(next() * 300)}${cursor === null ? '' : `&cursor=${cursor}`}`, { token: log.token });
    if (res.status !== 200) throw new Error(`feed answered ${res.status}: ${res.text}`);
    const seen = new Set<number>();
    for (const change of res.body.data as Change[]) {
      if (seen.has(change.id)) throw new Error(`QSO ${change.id} twice in one page`);
      seen.add(change.id);
      if (change.change === 'delete') mirror.delete(change.id);
      else mirror.set(change.id, change.qso!);
    }
    cursor = res.body.meta.cursor;
    if (!res.body.meta.has_more) {
      if (finished) return mirror;
      await sleep(next() * 20);
    }
  }
}

/** A since_id pager over the ADIF list: the calls of every record it was given (each call is one QSO's), in order. */
async function pager(server: TestServer, log: Log, next: () => number, done: () => boolean) {
  const given: string[] = [];
  let sinceId = 0;
  for (;;) {
    const finished = done();
    const res = await server.request(`/api/v2/qso?format=adif&per_page=${1 + Math.floor(next() * 300)}&since_id=${sinceId}`, { token: log.token });
    if (res.status !== 200) throw new Error(`list answered ${res.status}: ${res.text}`);
    for (const match of (res.body.data.adif ?? '').matchAll(/<CALL:\d+>([A-Z0-9]+)/g)) given.push(match[1]!);
    const last = Number(res.body.data.lastfetchedid);
    if (last === sinceId && finished) return given;
    if (last === sinceId) await sleep(next() * 20);
    sinceId = last;
  }
}

async function storedLog(server: TestServer, log: Log): Promise<Map<number, Record<string, unknown>>> {
  const { rows } = await server.db.pool.query<QsoRow>(`SELECT ${qsoSelectList('q')} FROM qso q WHERE q.station_id = ANY($1::int[])`, [log.stations]);
  return new Map(rows.map((row) => [Number(row.id), presentQso(row)]));
}

/**
 * Runs the scenario on `server` with the draws of `seed` (two users' logs, four writer lanes
 * making `operations` writes, a feed follower and a since_id pager each) and asserts that every
 * mirror equals its log.
 */
export async function mirrorsEqualTheLog(t: Test, server: TestServer, seed: number, operations = 80): Promise<void> {
  const db = server.db.pool;
  const logs: Log[] = [];
  for (const call of ['DL1MIR', 'DL2MIR']) {
    const op = await createOperator(db, { callsign: call });
    const second = await createStation(db, { userId: op.userId, name: 'Second', callsign: call });
    logs.push({ op, stations: [op.stationId, second], token: op.token });
  }
  const next = random(seed);
  let stop = false;
  let writing = true;
  const clients = Promise.all([
    ...logs.map((log) => follower(server, log, next, () => !writing)),
    ...logs.map((log) => pager(server, log, next, () => !writing)),
  ]);
  // A number of operations, not a time: a loaded machine still makes a log worth mirroring.
  let made = 0;
  await writers(server, logs, next, () => stop || ++made > operations);
  writing = false;
  stop = true;
  const [mirrorA, mirrorB, pagedA, pagedB] = (await clients) as [Map<number, Record<string, unknown>>, Map<number, Record<string, unknown>>, string[], string[]];

  let confirmed = 0;
  for (const [log, mirror, paged] of [[logs[0]!, mirrorA, pagedA], [logs[1]!, mirrorB, pagedB]] as const) {
    const stored = await storedLog(server, log);
    confirmed += [...stored.values()].filter((qso) => qso.lotw_qsl_rcvd === 'Y').length;
    t.ok(stored.size > 100, `${log.op.callsign}: a log of ${stored.size} QSOs`);
    t.same([...mirror.keys()].sort((x, y) => x - y), [...stored.keys()].sort((x, y) => x - y), `${log.op.callsign}: the feed mirror has exactly the stored QSOs`);
    const differing = [...stored].filter(([id, qso]) => JSON.stringify(mirror.get(id)) !== JSON.stringify(qso)).map(([id]) => id);
    t.same(differing, [], `${log.op.callsign}: every mirrored QSO in its stored state`);
    t.equal(new Set(paged).size, paged.length, `${log.op.callsign}: since_id never gave an id twice`);
    const pagedSet = new Set(paged);
    const missed = [...stored.values()].filter((qso) => !pagedSet.has(qso.call as string)).map((qso) => qso.id);
    t.same(missed, [], `${log.op.callsign}: since_id paging gave every stored QSO`);
  }
  t.ok(confirmed > 0, `reports confirmed QSOs while the clients read (${confirmed} stored as confirmed)`);
}
