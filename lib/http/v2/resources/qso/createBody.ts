import type { Readable, Writable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { ApiError, validationError } from '../../../errors.js';
import { SpoolFile } from '../../../spool.js';
import { MAX_JSON_DEPTH, payloadTooLarge } from '../../../body.js';
import { JsonTokenTree } from '../../../jsonTokenTree.js';
import { createTokenizer, END_OF_INPUT, type Tokenizer } from '../../../jsonTokenizer.js';
import { writeWithBackPressure } from '../../../../export/backPressure.js';

/**
 * Reads a POST /qso body as it arrives. An ADIF import carries a whole log in one JSON string
 * (`adif`), so the body is tokenised in a stream (stream-json) rather than JSON.parse'd: the
 * `adif` text goes out in chunks — straight to a running import when `import_type` and
 * `station_profile_id` came first, else to a temporary file — and only the other members are
 * assembled in memory, up to max_json_body_bytes.
 */

export interface CreateBodyLimits {
  /** Everything but the `adif` text (413 beyond). */
  maxJsonBytes: number;
}

/** Where the `adif` text went. */
export type AdifText =
  | { kind: 'absent' }
  /** Written to the sinks `startAdif` returned; they are left open for the caller to end or destroy. */
  | { kind: 'streamed' }
  /** Written to a temporary file, read back with `open()`; `discard()` removes it. */
  | { kind: 'spooled'; open(): Readable; discard(): Promise<void> };

export interface CreateBody {
  /** Every member but a string `adif`: scalars, and the arrays and objects of bulk creates. */
  members: Record<string, unknown>;
  adif: AdifText;
}

/**
 * Called when the `adif` string starts, with the members read so far. Returns the sinks the
 * text goes to as it arrives (each gets every chunk), or null to have it spooled. May throw
 * (e.g. 403 for a foreign station), which ends the reading.
 */
export type StartAdif = (membersSoFar: Readonly<Record<string, unknown>>) => Promise<Writable[] | null>;

const notAnObject = () => validationError('Request body must be a JSON object');

/** The members in memory (../../../jsonTokenTree.ts), under v2's rules and errors. */
function memberTree(maxJsonBytes: number): JsonTokenTree {
  return new JsonTokenTree({
    budget: maxJsonBytes,
    maxDepth: MAX_JSON_DEPTH,
    tooLarge: (limit) => payloadTooLarge(limit),
    tooDeep: () => validationError(`Request body nests deeper than ${MAX_JSON_DEPTH} levels`),
    // Assigned to an object, "__proto__" would set its prototype and the member would silently
    // vanish; every other v2 body refuses it as an unknown member, and so does this one.
    protoMember: () => validationError('Field "__proto__" is not accepted', { field: '__proto__' }),
    rootNotObject: notAnObject,
  });
}

/** Appended to JSON errors: a client that sent a log file learns how to send it. */
const HOW_TO_SEND_A_FILE =
  'To upload an ADIF or ADX file, send the file itself as the body (Content-Type text/plain, application/octet-stream or application/xml) ' +
  'with station_profile_id in the query, or as multipart/form-data with a file part';

/**
 * Reads the (decoded, size-bounded: see decodedBody) request body. Throws 413 payload_too_large, 400 invalid_json, or 400
 * validation_error for a body that is not a JSON object; a spool file is removed on failure.
 */
export async function readCreateBody(input: Readable, limits: CreateBodyLimits, startAdif: StartAdif, spoolFolder: string): Promise<CreateBody> {

  const tokenize = createTokenizer();
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const body = memberTree(limits.maxJsonBytes);
  /** Inside the top-level `adif` string: its text of the current input chunk. */
  let adifChunk: string | null = null;
  let adifSeen = false;
  const target: { sinks: Writable[]; spool: SpoolFile | null } = { sinks: [], spool: null };
  const send = async (text: string) => {
    for (const sink of target.sinks) await writeWithBackPressure(sink, text);
  };

  const consume = async (input: string | symbol) => {
    let output: ReturnType<Tokenizer>;
    try {
      output = tokenize(input);
    } catch (error) {
      throw new ApiError(400, 'invalid_json', `Request body is not valid JSON: ${(error as Error).message}. ${HOW_TO_SEND_A_FILE}`);
    }
    if (typeof output === 'symbol') return;
    for (const token of output.values) {
      if (body.startsTopLevelString(token, 'adif')) {
        if (adifSeen) throw validationError('Field "adif" appears more than once', { field: 'adif' });
        const sinks = await startAdif(body.rootObject!);
        if (sinks === null) target.spool = await SpoolFile.create(spoolFolder);
        target.sinks = sinks ?? [target.spool!.file];
        adifChunk = '';
        body.divert((text) => (adifChunk += text), () => (adifSeen = true));
        continue;
      }
      body.take(token);
      if (adifSeen && adifChunk !== null) {
        await send(adifChunk);
        adifChunk = null;
      }
    }
    // The `adif` text of one input chunk goes out in one write, not one per escape sequence.
    if (adifChunk) {
      await send(adifChunk);
      adifChunk = '';
      // A turn of the event loop before the next chunk: the body's async iteration hands buffered
      // chunks on in microtasks, and the running import's database answers (I/O) waited behind
      // them (a million-QSO JSON upload took 11 % longer than the same log sent as the body,
      // with the same CPU: benchmarks/RESULTS.md).
      await nextTurn();
    }
  };

  const decode = (chunk?: Buffer) => {
    try {
      return chunk ? decoder.decode(chunk, { stream: true }) : decoder.decode();
    } catch {
      throw new ApiError(400, 'invalid_json', `Request body is not valid UTF-8. ${HOW_TO_SEND_A_FILE}`);
    }
  };

  try {
    // Not destroyed when reading stops early: the error answer still goes out on this connection.
    for await (const chunk of input.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
      await consume(decode(chunk));
    }
    await consume(decode());
    await consume(END_OF_INPUT);
    await target.spool?.close();
  } catch (error) {
    await target.spool?.discard();
    throw error;
  }

  const members = body.rootObject ?? {};
  const { spool } = target;
  let adif: AdifText = { kind: 'absent' };
  if (spool) adif = { kind: 'spooled', open: () => spool.open(), discard: () => spool.discard() };
  else if (adifSeen) adif = { kind: 'streamed' };
  return { members, adif };
}
