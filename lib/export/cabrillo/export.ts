import { Readable } from 'node:stream';
import type pg from 'pg';
import { begin } from '../../db/transaction.js';
import type { QsoScope } from '../../qso/scope.js';
import { checkQso, ProblemTally, type ProblemReport } from './checks.js';
import { exchangeOf } from './exchange.js';
import { cabrilloHeader, MAX_OPERATORS, type LogSurvey } from './header.js';
import { cabrilloMode } from './names.js';
import { MULTI_TRANSMITTER, type CabrilloOptions } from './options.js';
import { formatQsoLine } from './qsoLine.js';
import { readCabrilloSession, sessionQsosQuery, type CabrilloSession, type SessionQso } from './sessionRows.js';

/** A Cabrillo log ready to stream: the checks (first pass) are done, the document is read on demand. */
export interface CabrilloExport {
  session: CabrilloSession;
  qsoCount: number;
  problems: ProblemReport[];
  problemCount: number;
  /** The document, CRLF lines; reading it runs the second pass and gives the connection back at its end. */
  document: Readable;
  /** `CALLSIGN-CONTEST.log`, safe as a file name. */
  fileName: string;
}

/** Whom the export is for: the session's owner (null: any, the operator's command line) and what they may see. */
export interface CabrilloRequest {
  sessionId: number;
  userId: number | null;
  /** The QSOs the requester may see; null: every QSO of the session's owner. */
  scope: QsoScope | null;
  options: CabrilloOptions;
}

const LINES_PER_CHUNK = 200;

interface Pass {
  qso: SessionQso;
  line: ReturnType<typeof formatQsoLine>;
}

/** Every linked QSO the scope shows, formatted and checked, in time order. */
async function* passes(client: pg.PoolClient, session: CabrilloSession, scope: QsoScope, options: CabrilloOptions, tally: ProblemTally): AsyncGenerator<Pass> {
  const multi = MULTI_TRANSMITTER.includes(options.categories.transmitter ?? '');
  for await (const qso of client.query(sessionQsosQuery(session, scope)) as AsyncIterable<SessionQso>) {
    const exchange = exchangeOf(qso, session);
    const radio = qso.radio_nr === null ? NaN : Number(qso.radio_nr);
    const transmitter = multi ? (Number.isInteger(radio) && radio >= 1 ? radio - 1 : 0) : null;
    const line = formatQsoLine(qso, session.callsign, exchange, transmitter);
    checkQso(tally, qso, exchange, line, !multi || (Number.isInteger(radio) && radio >= 1));
    yield { qso, line };
  }
}

async function ownerScope(client: pg.PoolClient, userId: number): Promise<QsoScope> {
  const { rows } = await client.query<{ id: number }>('SELECT id FROM stations WHERE user_id = $1', [userId]);
  return { stationIds: rows.map((row) => row.id), operator: null };
}

async function finish(client: pg.PoolClient, error: unknown): Promise<void> {
  try {
    await client.query(error === undefined ? 'COMMIT' : 'ROLLBACK');
    client.release();
  } catch (closing) {
    client.release(closing as Error);
  }
}

/**
 * Opens a session's Cabrillo export in one REPEATABLE READ snapshot: the first pass checks the
 * log and finds the header's defaults, the second (read from `document`) writes it, so both
 * see the same QSOs and memory stays flat. Null when the session is not the requester's.
 */
export async function openCabrilloExport(pool: pg.Pool, request: CabrilloRequest): Promise<CabrilloExport | null> {
  const client = await pool.connect();
  let handedOver = false;
  try {
    await begin(client, 'ISOLATION LEVEL REPEATABLE READ READ ONLY', { statement_timeout: 0 });
    const found = await readCabrilloSession(client, request.sessionId, request.userId);
    if (!found) return null;
    const session: CabrilloSession = found;
    const scope = request.scope ?? (await ownerScope(client, found.userId));
    const tally = new ProblemTally();
    const survey: LogSurvey = { bands: new Set(), modes: new Set(), operators: new Set() };
    let qsoCount = 0;
    for await (const { qso } of passes(client, session, scope, request.options, tally)) {
      qsoCount += 1;
      survey.bands.add(qso.band.toLowerCase());
      const mode = cabrilloMode(qso.mode);
      if (mode !== null) survey.modes.add(mode);
      if (qso.operator && survey.operators.size < MAX_OPERATORS) survey.operators.add(qso.operator.toUpperCase());
    }
    let started = false;
    async function* lines(): AsyncGenerator<string> {
      started = true;
      let failure: unknown;
      try {
        yield `${cabrilloHeader(session, request.options, survey).join('\r\n')}\r\n`;
        let chunk: string[] = [];
        for await (const { line } of passes(client, session, scope, request.options, new ProblemTally())) {
          chunk.push(line.text);
          if (chunk.length === LINES_PER_CHUNK) {
            yield `${chunk.join('\r\n')}\r\n`;
            chunk = [];
          }
        }
        yield `${chunk.map((line) => `${line}\r\n`).join('')}END-OF-LOG:\r\n`;
      } catch (error) {
        failure = error;
        throw error;
      } finally {
        await finish(client, failure);
      }
    }
    const document = Readable.from(lines(), { objectMode: false });
    // A document destroyed before its first read never enters lines(), whose end gives the connection back.
    document.once('close', () => {
      if (!started) void finish(client, new Error('not read'));
    });
    handedOver = true;
    return {
      session,
      qsoCount,
      problems: tally.report(),
      problemCount: tally.total,
      document,
      fileName: `${session.callsign}-${session.contest}.log`.replace(/[^A-Za-z0-9._-]/g, '_'),
    };
  } finally {
    if (!handedOver) await finish(client, undefined);
  }
}
