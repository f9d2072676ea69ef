import type { Writable } from 'node:stream';
import { validationError } from '../errors.js';
import { writeWithBackPressure } from '../../export/backPressure.js';

/**
 * A streaming `multipart/form-data` reader (RFC 7578) for uploads as browser forms send them:
 * small text fields are collected, the one file part goes out chunk by chunk to the sink
 * `onFile` returns, with back-pressure; nothing but a delimiter's length of bytes is held back.
 */

export interface MultipartHandlers {
  /** A text field; values are short (at most MAX_FIELD_BYTES). */
  onField(name: string, value: string): void;
  /** The file part starts: where its bytes go. The reader ends the sink after the last byte. */
  onFile(field: string, filename: string): Promise<Writable>;
}

const MAX_FIELD_BYTES = 64 * 1024;
const MAX_HEADER_BYTES = 16 * 1024;
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

type State = 'preamble' | 'afterDelimiter' | 'headers' | 'field' | 'file' | 'done';

/** Reads the whole body; 400 for a malformed one, for a second file part, or a form without its closing delimiter. */
export async function readMultipart(body: AsyncIterable<Buffer>, boundary: string, handlers: MultipartHandlers): Promise<{ file: boolean }> {
  const delimiter = Buffer.from(`\r\n--${boundary}`);
  // The first delimiter may open the body without a preceding line break.
  let pending: Buffer = Buffer.from('\r\n');
  let state: State = 'preamble';
  let part: PartHeaders | null = null;
  let field: Buffer[] = [];
  let fieldBytes = 0;
  let sink: Writable | null = null;
  let sawFile = false;

  const emit = async (bytes: Buffer) => {
    if (bytes.length === 0) return;
    if (state === 'file') await writeWithBackPressure(sink!, bytes);
    else if (state === 'field') {
      fieldBytes += bytes.length;
      if (fieldBytes > MAX_FIELD_BYTES) throw validationError(`Form field "${part!.name}" is longer than ${MAX_FIELD_BYTES} bytes`);
      field.push(bytes);
    }
  };

  const endPart = async () => {
    if (state === 'file') {
      const done = sink!;
      sink = null;
      await new Promise<void>((resolve, reject) => done.end((error?: Error | null) => (error ? reject(error) : resolve())));
    } else if (state === 'field') handlers.onField(part!.name, Buffer.concat(field).toString('utf8'));
  };

  /** Consumes what `pending` allows; returns false when more input is needed. */
  const step = async (final: boolean): Promise<boolean> => {
    switch (state) {
      case 'preamble':
      case 'field':
      case 'file': {
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
        pending = pending.subarray(at + delimiter.length);
        state = 'afterDelimiter';
        return true;
      }
      case 'afterDelimiter': {
        if (pending.length < 2) return false;
        if (pending[0] === 0x2d && pending[1] === 0x2d) {
          state = 'done';
          return false;
        }
        const lineEnd = pending.indexOf('\r\n');
        if (lineEnd === -1) return false;
        pending = pending.subarray(lineEnd + 2); // transport padding ignored
        state = 'headers';
        return true;
      }
      case 'headers': {
        const end = pending.indexOf(CRLF2);
        if (end === -1) {
          if (pending.length > MAX_HEADER_BYTES) throw validationError('A multipart part has oversized headers');
          return false;
        }
        part = partHeaders(pending.subarray(0, end).toString('utf8'));
        pending = pending.subarray(end + CRLF2.length);
        if (part.filename !== null) {
          if (sawFile) throw validationError('Send one file per upload; this form has more than one file part');
          sawFile = true;
          sink = await handlers.onFile(part.name, part.filename);
          state = 'file';
        } else {
          field = [];
          fieldBytes = 0;
          state = 'field';
        }
        return true;
      }
      case 'done':
        pending = Buffer.alloc(0); // the epilogue is ignored
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
