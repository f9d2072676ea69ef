import { PassThrough, Writable, type Readable } from 'node:stream';
import { ApiError, validationError } from '../errors.js';
import { writeWithBackPressure } from '../../export/backPressure.js';

/**
 * A streaming `multipart/form-data` reader (RFC 7578) for uploads as browser forms send them:
 * small text fields are collected, the one file part goes out chunk by chunk to the sink
 * `onFile` returns, with back-pressure. Every state holds a bounded number of bytes and looks at
 * each byte a bounded number of times, so work is linear in the body and memory flat.
 */

export interface MultipartHandlers {
  /** A text field; values are short (see FORM_LIMITS). */
  onField(name: string, value: string): void;
  /** The file part starts: where its bytes go. The reader ends the sink after the last byte. */
  onFile(field: string, filename: string): Promise<Writable>;
}

/** What a form may hold besides its file part (docs/security.md). */
export const FORM_LIMITS = {
  /** One text field's value. */
  fieldBytes: 64 * 1024,
  /** All text field values together. */
  fieldsBytes: 256 * 1024,
  /** Text fields in one form. */
  fields: 100,
  /** One part's header block. */
  headerBytes: 16 * 1024,
  /** Bytes before the first delimiter, and after the closing one. */
  preambleBytes: 64 * 1024,
  /** Transport padding (blanks) between a delimiter and its line break. */
  paddingBytes: 256,
} as const;

const CRLF2 = Buffer.from('\r\n\r\n');

/** The boundary of a `multipart/form-data` Content-Type; 400 when it has none. */
export function multipartBoundary(contentType: string): string {
  const match = /;\s*boundary=(?:"([^"]{1,70})"|([^\s;]{1,70}))/i.exec(contentType);
  const boundary = match?.[1] ?? match?.[2];
  if (!boundary) throw validationError('multipart/form-data needs a boundary parameter in Content-Type');
  return boundary;
}

interface PartHeaders {
  name: string;
  filename: string | null;
}

function partHeaders(raw: string): PartHeaders {
  const disposition = /^content-disposition:\s*form-data(.*)$/im.exec(raw);
  if (!disposition) throw validationError('A multipart part lacks Content-Disposition: form-data');
  const parameter = (key: string) => {
    const found = new RegExp(`;\\s*${key}="((?:[^"\\\\]|\\\\.)*)"`, 'i').exec(disposition[1]!) ?? new RegExp(`;\\s*${key}=([^;\\s]+)`, 'i').exec(disposition[1]!);
    return found ? found[1]!.replace(/\\(.)/g, '$1') : null;
  };
  const name = parameter('name');
  if (name === null) throw validationError('A multipart part has no name');
  return { name, filename: parameter('filename') };
}

const formTooLarge = (message: string, limit: number) => new ApiError(413, 'payload_too_large', message, { limit });

type State = 'preamble' | 'afterDelimiter' | 'headers' | 'field' | 'file' | 'done';

/** Reads the whole body; 400 for a malformed one, for a second file part, or a form without its closing delimiter; 413 for fields beyond FORM_LIMITS. */
export async function readMultipart(body: AsyncIterable<Buffer>, boundary: string, handlers: MultipartHandlers): Promise<{ file: boolean }> {
  const delimiter = Buffer.from(`\r\n--${boundary}`);
  // The first delimiter may open the body without a preceding line break.
  let pending: Buffer = Buffer.from('\r\n');
  /** Bytes of `pending` already searched in the states that wait for a line break (never searched twice). */
  let scanned = 0;
  /** Bytes of the preamble or the epilogue seen so far. */
  let outside = 0;
  let state: State = 'preamble';
  let part: PartHeaders | null = null;
  let field: Buffer[] = [];
  let fieldBytes = 0;
  let fieldsBytes = 0;
  let fields = 0;
  let sink: Writable | null = null;
  let sawFile = false;

  const emit = async (bytes: Buffer) => {
    if (bytes.length === 0) return;
    if (state === 'file') await writeWithBackPressure(sink!, bytes);
    else if (state === 'field') {
      fieldBytes += bytes.length;
      fieldsBytes += bytes.length;
      if (fieldBytes > FORM_LIMITS.fieldBytes) throw formTooLarge(`Form field "${part!.name}" is longer than ${FORM_LIMITS.fieldBytes} bytes`, FORM_LIMITS.fieldBytes);
      if (fieldsBytes > FORM_LIMITS.fieldsBytes) throw formTooLarge(`The form's text fields hold more than ${FORM_LIMITS.fieldsBytes} bytes together`, FORM_LIMITS.fieldsBytes);
      field.push(bytes);
    } else if ((outside += bytes.length) > FORM_LIMITS.preambleBytes) {
      throw validationError(`The multipart body has more than ${FORM_LIMITS.preambleBytes} bytes outside its parts: is "${boundary}" its boundary?`);
    }
  };

  const endPart = async () => {
    if (state === 'file') {
      const done = sink!;
      sink = null;
      await new Promise<void>((resolve, reject) => done.end((error?: Error | null) => (error ? reject(error) : resolve())));
    } else if (state === 'field') handlers.onField(part!.name, Buffer.concat(field).toString('utf8'));
  };

  const consume = (bytes: number, next: State) => {
    pending = pending.subarray(bytes);
    scanned = 0;
    state = next;
  };

  /** Consumes what `pending` allows; returns false when more input is needed. */
  const step = async (final: boolean): Promise<boolean> => {
    switch (state) {
      case 'preamble':
      case 'field':
      case 'file': {
        // What stays in `pending` is shorter than the delimiter: each byte is searched at most twice.
        const at = pending.indexOf(delimiter);
        if (at === -1) {
          // Keep a possible start of the delimiter for the next chunk.
          const keep = final ? 0 : Math.min(pending.length, delimiter.length - 1);
          await emit(pending.subarray(0, pending.length - keep));
          pending = pending.subarray(pending.length - keep);
          return false;
        }
        await emit(pending.subarray(0, at));
        await endPart();
        consume(at + delimiter.length, 'afterDelimiter');
        return true;
      }
      case 'afterDelimiter': {
        if (pending.length < 2) return false;
        if (scanned === 0 && pending[0] === 0x2d && pending[1] === 0x2d) {
          consume(2, 'done');
          outside = 0;
          return true;
        }
        // Only blanks (transport padding) may stand between a delimiter and its line break.
        for (; scanned < pending.length; scanned++) {
          const byte = pending[scanned]!;
          if (byte === 0x0d) {
            if (scanned + 1 === pending.length) return false;
            if (pending[scanned + 1] !== 0x0a) break;
            consume(scanned + 2, 'headers');
            return true;
          }
          if ((byte !== 0x20 && byte !== 0x09) || scanned >= FORM_LIMITS.paddingBytes) break;
        }
        if (scanned < pending.length) throw validationError('Malformed multipart body: a boundary delimiter is not followed by a line break');
        return false;
      }
      case 'headers': {
        const end = pending.indexOf(CRLF2, Math.max(0, scanned - (CRLF2.length - 1)));
        if (end === -1) {
          scanned = pending.length;
          if (pending.length > FORM_LIMITS.headerBytes) throw validationError(`A multipart part has headers longer than ${FORM_LIMITS.headerBytes} bytes`);
          return false;
        }
        if (end > FORM_LIMITS.headerBytes) throw validationError(`A multipart part has headers longer than ${FORM_LIMITS.headerBytes} bytes`);
        part = partHeaders(pending.subarray(0, end).toString('utf8'));
        if (part.filename !== null) {
          if (sawFile) throw validationError('Send one file per upload; this form has more than one file part');
          sawFile = true;
          sink = await handlers.onFile(part.name, part.filename);
          consume(end + CRLF2.length, 'file');
        } else {
          if (++fields > FORM_LIMITS.fields) throw formTooLarge(`The form has more than ${FORM_LIMITS.fields} text fields`, FORM_LIMITS.fields);
          field = [];
          fieldBytes = 0;
          consume(end + CRLF2.length, 'field');
        }
        return true;
      }
      case 'done':
        // The epilogue is ignored, up to a bound.
        await emit(pending);
        pending = Buffer.alloc(0);
        return false;
    }
  };

  try {
    for await (const chunk of body) {
      pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      while (await step(false));
    }
    while (await step(true));
    if ((state as State) !== 'done') throw validationError('The multipart body ended before its closing delimiter');
  } catch (error) {
    (sink as Writable | null)?.destroy(error as Error);
    throw error;
  }
  return { file: sawFile };
}

/**
 * The form's bytes passed on unchanged while readMultipart checks them as they arrive: a body
 * received before its import (receivedBody.ts) still fails at its first malformed byte or field
 * beyond FORM_LIMITS, instead of after all of it was decompressed and spooled.
 */
export function checkedForm(body: Readable, boundary: string): Readable {
  const out = new PassThrough();
  // Its reader may have stopped first (the body refused for another cause); the check's error
  // then has no other listener.
  out.on('error', () => undefined);
  async function* passed(): AsyncGenerator<Buffer> {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      await writeWithBackPressure(out, chunk);
      yield chunk;
    }
  }
  readMultipart(passed(), boundary, {
    onField: () => undefined,
    onFile: async () => {
      // readMultipart destroys the file's sink with the form's error; `out` carries that error on.
      const discard = new Writable({ write: (_chunk, _encoding, callback) => callback() });
      return discard.on('error', () => undefined);
    },
  }).then(() => out.end(), (error: Error) => out.destroy(error));
  return out;
}
