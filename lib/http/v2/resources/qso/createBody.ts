import type { Readable, Writable } from 'node:stream';
import { jsonParser, type Token } from 'stream-json/parser.js';
import { ApiError, validationError } from '../../../errors.js';
import { SpoolFile } from '../../../spool.js';
import { MAX_JSON_DEPTH, payloadTooLarge } from '../../../body.js';
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

/** Flush marker of stream-chain's flushable functions, which stream-json's parser is. */
const END_OF_INPUT = Symbol.for('object-stream.none');
/** Bytes a token costs beyond its text, for the max_json_body_bytes budget. */
const TOKEN_OVERHEAD = 8;

type Tokenizer = (input: string | symbol) => { values: Token[] } | symbol;
type Container = Record<string, unknown> | unknown[];

/** Builds the members from tokens, sending the top-level `adif` string elsewhere. */
class BodyAssembler {
  root: Record<string, unknown> | undefined;
  private readonly stack: Container[] = [];
  private key: string | null = null;
  private text: string[] | null = null;
  private jsonBytes = 0;
  /** Inside the top-level `adif` string: its text of the current input chunk. */
  adifChunk: string | null = null;
  adifSeen = false;

  constructor(private readonly maxJsonBytes: number) {}

  private count(bytes: number): void {
    this.jsonBytes += bytes + TOKEN_OVERHEAD;
    if (this.jsonBytes > this.maxJsonBytes) throw payloadTooLarge(this.maxJsonBytes);
  }

  private add(value: unknown): void {
    const top = this.stack[this.stack.length - 1];
    if (top === undefined) throw validationError('Request body must be a JSON object');
    if (Array.isArray(top)) top.push(value);
    else top[this.key!] = value;
  }

  private open(container: Container): void {
    if (this.stack.length === 0) {
      if (Array.isArray(container)) throw validationError('Request body must be a JSON object');
      this.root = container;
    } else this.add(container);
    this.stack.push(container);
    if (this.stack.length > MAX_JSON_DEPTH) throw validationError(`Request body nests deeper than ${MAX_JSON_DEPTH} levels`);
  }

  /** True when the token starts the top-level `adif` string. */
  startsAdif(token: Token): boolean {
    return token.name === 'startString' && this.stack.length === 1 && this.key === 'adif';
  }

  take(token: Token): void {
    if (this.adifChunk !== null) {
      if (token.name === 'stringChunk') this.adifChunk += token.value;
      else if (token.name === 'endString') this.adifSeen = true;
      return;
    }
    this.count('value' in token && typeof token.value === 'string' ? token.value.length : 0);
    switch (token.name) {
      case 'startObject':
        this.open({});
        break;
      case 'startArray':
        this.open([]);
        break;
      case 'endObject':
      case 'endArray':
        this.stack.pop();
        break;
      case 'keyValue':
        // Assigned to an object, "__proto__" would set its prototype and the member would
        // silently vanish; every other v2 body refuses it as an unknown member, and so does this one.
        if (token.value === '__proto__') throw validationError('Field "__proto__" is not accepted', { field: '__proto__' });
        this.key = token.value;
        break;
      case 'startString':
        this.text = [];
        break;
      case 'stringChunk':
        this.text!.push(token.value);
        break;
      case 'endString':
        this.add(this.text!.join(''));
        this.text = null;
        break;
      case 'numberValue':
        this.add(Number(token.value));
        break;
      case 'nullValue':
      case 'trueValue':
      case 'falseValue':
        this.add(token.value);
        break;
      default:
        break;
    }
  }
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

  const tokenize = jsonParser({ packKeys: true, streamKeys: false, packNumbers: true, streamNumbers: false, packStrings: false }) as unknown as Tokenizer;
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const body = new BodyAssembler(limits.maxJsonBytes);
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
      if (body.startsAdif(token)) {
        if (body.adifSeen) throw validationError('Field "adif" appears more than once', { field: 'adif' });
        const sinks = await startAdif(body.root!);
        if (sinks === null) target.spool = await SpoolFile.create(spoolFolder);
        target.sinks = sinks ?? [target.spool!.file];
        body.adifChunk = '';
        continue;
      }
      body.take(token);
      if (body.adifSeen && body.adifChunk !== null) {
        await send(body.adifChunk);
        body.adifChunk = null;
      }
    }
    // The `adif` text of one input chunk goes out in one write, not one per escape sequence.
    if (body.adifChunk) {
      await send(body.adifChunk);
      body.adifChunk = '';
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

  const members = body.root ?? {};
  const { spool } = target;
  let adif: AdifText = { kind: 'absent' };
  if (spool) adif = { kind: 'spooled', open: () => spool.open(), discard: () => spool.discard() };
  else if (body.adifSeen) adif = { kind: 'streamed' };
  return { members, adif };
}
