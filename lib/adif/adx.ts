import { StringDecoder } from 'node:string_decoder';
import type { Transform } from 'node:stream';
import { createItemStream } from './parseStream.js';
import { fieldRecords } from './spec.js';
import { DEFAULT_MAX_FIELD_LENGTH } from './tokenizer.js';
import { readDocument, type AdifItemSink } from './itemReader.js';
import { XmlScanner } from './xmlScanner.js';
import { excerpt } from './excerpt.js';
import type { AdifHeader, AdifParseResult, AdifProblemCode } from './types.js';
import { adifHeaderComment, createDocumentWriter, formatAdifTimestamp, type AdifFieldPairs, type AdifHeaderOptions } from './writer.js';

/**
 * ADX (ADIF as XML). Reading goes through XmlScanner (linear time, bounded memory on any
 * input) and yields the same items as the .adi reader; application fields (`<APP PROGRAMID FIELDNAME>`) become
 * `APP_{PROGRAMID}_{FIELDNAME}` and user-defined ones (`<USERDEF FIELDNAME>`)
 * their own name, as in .adi files.
 */

export interface AdxReaderOptions {
  /** Longest field value accepted, in characters; a longer one is reported as a problem. Default 1 MiB. */
  maxFieldLength?: number;
}

const MAX_XML_ERRORS = 100;
/** Header comments kept (their text is capped by the scanner). */
const MAX_HEADER_COMMENTS = 16;

/** Which part of the document the reader is in. */
type Section = 'none' | 'header' | 'records';

/** The field being collected: its name, the element depth it sits at, its text so far. */
interface OpenField {
  /** '' when the element does not name a usable field: its text is dropped. */
  name: string;
  depth: number;
  text: string;
  /** Appended to the text: a header USERDEF's enumeration or range. */
  suffix: string;
  tooLong: boolean;
}

type Attributes = Readonly<Record<string, string>>;

function attribute(attributes: Attributes, name: string): string | undefined {
  const exact = attributes[name];
  if (exact !== undefined) return exact;
  for (const [key, value] of Object.entries(attributes)) if (key.toUpperCase() === name) return value;
  return undefined;
}

/** ADX reader as a push/end state machine over bytes, like AdifTokenizer. */
export class AdxReader {
  private readonly maxFieldLength: number;
  /** See AdifItemReader.recognized. */
  recognized = false;
  private readonly decoder = new StringDecoder('utf8');
  private readonly scanner: XmlScanner;
  /** Where items go during the push() or end() call under way. */
  private out: AdifItemSink = () => undefined;

  private depth = 0;
  private section: Section = 'none';
  private headerEmitted = false;
  private readonly headerFields: Record<string, string> = {};
  private readonly headerComments: string[] = [];
  private pendingProblems: Array<{ line: number; code: AdifProblemCode; text: string }> = [];

  private record: Record<string, string> | undefined;
  private recordLine = 0;
  private recordCount = 0;
  private field: OpenField | undefined;
  private xmlErrors = 0;

  constructor(options: AdxReaderOptions = {}) {
    this.maxFieldLength = options.maxFieldLength ?? DEFAULT_MAX_FIELD_LENGTH;
    this.scanner = new XmlScanner({
      openTag: (name, attributes) => this.openTag(name, attributes),
      closeTag: () => this.closeTag(),
      text: (text) => this.addText(text),
      comment: (comment) => {
        if (this.section === 'header' && this.depth === 2 && this.headerComments.length < MAX_HEADER_COMMENTS) this.headerComments.push(comment.trim());
      },
      error: (message) => this.reportXmlError(message),
    }, this.maxFieldLength);
  }

  push(chunk: Buffer, sink: AdifItemSink): void {
    this.out = sink;
    this.scanner.write(this.decoder.write(chunk));
  }

  end(sink: AdifItemSink): void {
    this.out = sink;
    const rest = this.decoder.end();
    if (rest !== '') this.scanner.write(rest);
    this.scanner.end();
    this.emitHeader();
  }

  private openTag(tagName: string, attributes: Attributes): void {
    const depth = ++this.depth;
    const name = tagName.toUpperCase();
    if (this.field) {
      this.report('ignored_element', `element ${name} inside field ${this.field.name} is ignored`);
      return;
    }
    if (depth === 1) {
      if (name === 'ADX') this.recognized = true;
    } else if (depth === 2) {
      if (name === 'HEADER') this.section = 'header';
      else if (name === 'RECORDS') {
        this.emitHeader();
        this.section = 'records';
      }
    } else if (depth === 3 && this.section === 'header') {
      if (name === 'USERDEF') this.openUserdefDefinition(attributes, depth);
      else this.openField(name, depth);
    } else if (depth === 3 && this.section === 'records' && name === 'RECORD') {
      this.record = {};
      this.recordLine = this.scanner.line;
    } else if (depth === 4 && this.record) {
      this.openField(this.recordFieldName(attributes, name), depth);
    }
  }

  private closeTag(): void {
    const depth = this.depth--;
    const field = this.field;
    if (field && field.depth === depth) {
      this.field = undefined;
      if (field.name === '' || field.tooLong) return;
      const value = field.text + field.suffix;
      if (this.section === 'header') this.headerFields[field.name] = value;
      else if (this.record) this.addField(this.record, field.name, value);
      return;
    }
    if (depth === 3 && this.record) {
      if (Object.keys(this.record).length > 0) {
        this.out({ kind: 'record', fields: this.record, recordNo: ++this.recordCount, line: this.recordLine });
      }
      this.record = undefined;
    } else if (depth === 2 && this.section === 'header') {
      this.emitHeader();
      this.section = 'none';
    }
  }

  /** As in .adi files, a repeated field keeps its first value and the repeat is reported (an empty value carries nothing). */
  private addField(record: Record<string, string>, name: string, value: string): void {
    const existing = record[name];
    if (existing === undefined || existing === '') record[name] = value;
    else if (value !== '' && value !== existing) {
      this.report('repeated_field', `field ${name} occurs twice in one record: the first value '${excerpt(existing)}' is kept, '${excerpt(value)}' is dropped`);
    }
  }

  private openField(name: string, depth: number, suffix = ''): void {
    this.field = { name, depth, text: '', suffix, tooLong: false };
  }

  private addText(text: string): void {
    const field = this.field;
    if (!field || field.depth !== this.depth || field.tooLong) return;
    if (field.text.length + text.length > this.maxFieldLength) {
      field.tooLong = true;
      this.report('value_too_long', `field ${field.name} is longer than the maximum of ${this.maxFieldLength}`);
      return;
    }
    field.text += text;
  }

  /** `<USERDEF FIELDID="n" ENUM|RANGE="{...}">NAME</USERDEF>` is the .adi header field USERDEFn = `NAME,{...}`. */
  private openUserdefDefinition(attributes: Attributes, depth: number): void {
    const id = attribute(attributes, 'FIELDID');
    if (id === undefined) this.report('ignored_element', 'USERDEF in the header has no FIELDID');
    const values = attribute(attributes, 'ENUM') ?? attribute(attributes, 'RANGE');
    this.openField(id === undefined ? '' : `USERDEF${id}`, depth, values === undefined ? '' : `,${values}`);
  }

  private recordFieldName(attributes: Attributes, name: string): string {
    if (name === 'APP') {
      const programId = attribute(attributes, 'PROGRAMID');
      const fieldName = attribute(attributes, 'FIELDNAME');
      if (!programId || !fieldName) {
        this.report('ignored_element', 'APP element without PROGRAMID or FIELDNAME is ignored');
        return '';
      }
      return `APP_${programId}_${fieldName}`.toUpperCase();
    }
    if (name === 'USERDEF') {
      const fieldName = attribute(attributes, 'FIELDNAME');
      if (!fieldName) {
        this.report('ignored_element', 'USERDEF element without FIELDNAME is ignored');
        return '';
      }
      return fieldName.toUpperCase();
    }
    return name;
  }

  private emitHeader(): void {
    if (this.headerEmitted) return;
    this.headerEmitted = true;
    const header: AdifHeader = { comment: this.headerComments.join('\n').trim(), fields: this.headerFields };
    this.out({ kind: 'header', header });
    for (const problem of this.pendingProblems) this.pushProblem(0, problem.line, problem.code, problem.text);
    this.pendingProblems = [];
  }

  /** The scanner keeps going after an error and may report one per character of a non-XML file: the first ones are enough. */
  private reportXmlError(message: string): void {
    if (++this.xmlErrors > MAX_XML_ERRORS) return;
    const text = `XML error at column ${this.scanner.column}: ${message}`;
    this.report('xml_error', this.xmlErrors === MAX_XML_ERRORS ? `${text} (further XML errors are not reported)` : text);
  }

  private report(code: AdifProblemCode, text: string): void {
    const line = this.scanner.line;
    if (!this.headerEmitted) this.pendingProblems.push({ line, code, text });
    else this.pushProblem(this.section === 'records' ? this.recordCount + 1 : 0, line, code, text);
  }

  private pushProblem(recordNo: number, line: number, code: AdifProblemCode, text: string): void {
    const where = recordNo === 0 ? 'header' : `record ${recordNo}`;
    this.out({ kind: 'problem', problem: { code, recordNo, line, message: `${where}, line ${line}: ${text}` } });
  }
}

/** ADX bytes in, AdifItem objects out (header first, then records and problems). */
export function createAdxParser(options?: AdxReaderOptions): Transform {
  return createItemStream(new AdxReader(options));
}

/** Reads a whole ADX document at once. */
export function parseAdx(input: string | Buffer, options?: AdxReaderOptions): AdifParseResult {
  return readDocument(new AdxReader(options), input);
}

// ---- output ----

/** Characters that XML text cannot hold as they are: markup, CR (which XML would turn into LF), and non-characters. */
const TEXT_SPECIALS = /[&<>\r\0-\x08\x0B\x0C\x0E-\x1F\uFFFE\uFFFF\uD800-\uDFFF]/gu;
const ATTRIBUTE_SPECIALS = /[&<>"\t\n\r\0-\x08\x0B\x0C\x0E-\x1F\uFFFE\uFFFF\uD800-\uDFFF]/gu;

function escapeCharacter(char: string): string {
  switch (char) {
    case '&': return '&amp;';
    case '<': return '&lt;';
    case '>': return '&gt;';
    case '"': return '&quot;';
    case '\t': return '&#9;';
    case '\n': return '&#10;';
    case '\r': return '&#13;';
    // XML 1.0 cannot represent the rest at all, not even as references.
    default: return '\uFFFD';
  }
}

function escapeText(value: string): string {
  TEXT_SPECIALS.lastIndex = 0;
  return TEXT_SPECIALS.test(value) ? value.replace(TEXT_SPECIALS, escapeCharacter) : value;
}

function escapeAttribute(value: string): string {
  return value.replace(ATTRIBUTE_SPECIALS, escapeCharacter);
}

let recordFieldNames: ReadonlySet<string> | undefined;

/** Fields the specification defines for records: written as their own elements. */
function isRecordField(name: string): boolean {
  recordFieldNames ??= new Set(fieldRecords().filter((row) => row['Header Field'] !== 'true').map((row) => row['Field Name']!));
  return recordFieldNames.has(name);
}

/** `APP_{PROGRAMID}_{FIELDNAME}` split at its second underscore, or undefined. */
function splitApplicationField(name: string): { programId: string; fieldName: string } | undefined {
  if (!name.startsWith('APP_')) return undefined;
  const separator = name.indexOf('_', 4);
  if (separator <= 4 || separator === name.length - 1) return undefined;
  return { programId: name.slice(4, separator), fieldName: name.slice(separator + 1) };
}

function formatAdxField(name: string, value: string): string {
  const text = escapeText(value);
  if (isRecordField(name)) return `<${name}>${text}</${name}>`;
  const application = splitApplicationField(name);
  if (application) {
    return `<APP PROGRAMID="${escapeAttribute(application.programId)}" FIELDNAME="${escapeAttribute(application.fieldName)}">${text}</APP>`;
  }
  return `<USERDEF FIELDNAME="${escapeAttribute(name)}">${text}</USERDEF>`;
}

export function formatAdxHeader(options: AdifHeaderOptions): string {
  const fields: Array<[string, string]> = [
    ['ADIF_VER', options.adifVersion],
    ['PROGRAMID', options.programId],
    ['PROGRAMVERSION', options.programVersion],
    ['CREATED_TIMESTAMP', formatAdifTimestamp(options.createdAt)],
  ];
  const comment = adifHeaderComment(options).replaceAll('--', '- -');
  const lines = ['<?xml version="1.0" encoding="UTF-8"?>', '<ADX>', '<HEADER>', `<!-- ${comment} -->`];
  for (const [name, value] of fields) if (value !== '') lines.push(`<${name}>${escapeText(value)}</${name}>`);
  lines.push('</HEADER>', '<RECORDS>', '');
  return lines.join('\n');
}

/** One `<RECORD>` per line; empty values are left out, and a record with none yields ''. */
export function formatAdxRecord(fields: AdifFieldPairs): string {
  let body = '';
  for (const [name, value] of fields) if (value !== '') body += formatAdxField(name, value);
  return body === '' ? '' : `<RECORD>${body}</RECORD>\n`;
}

export function formatAdxFooter(): string {
  return '</RECORDS>\n</ADX>\n';
}

/** Stream of records (field pairs) in, ADX document out. */
export function createAdxWriter(header: AdifHeaderOptions): Transform {
  return createDocumentWriter(formatAdxHeader(header), formatAdxRecord, formatAdxFooter());
}
