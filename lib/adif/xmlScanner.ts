/**
 * A small XML scanner for ADX: a push state machine over decoded text, in the style of the .adi
 * tokenizer. Every character is looked at once, whatever the chunking; nothing is rescanned, and
 * everything it accumulates (names, attribute values, text, comments) is capped, so time is
 * linear and memory bounded on any input. It knows what ADX needs: elements, attributes,
 * character and the five predefined entity references, CDATA, comments; processing instructions
 * and the DOCTYPE are skipped. Errors are reported and scanning goes on.
 */

export interface XmlEvents {
  openTag(name: string, attributes: Readonly<Record<string, string>>): void;
  closeTag(): void;
  /** Character data (text, references and CDATA), in pieces; line breaks normalised to \n. */
  text(piece: string): void;
  comment(text: string): void;
  error(message: string): void;
}

/** Longest element or attribute name kept; a longer one is an error. */
const MAX_NAME = 256;
/** Attributes kept per element; ADX uses at most four. */
const MAX_ATTRIBUTES = 32;
/** Longest entity reference name (`#x10FFFF` is the longest valid one). */
const MAX_ENTITY = 10;

const enum State {
  Text,
  /** After `<`. */
  Open,
  TagName,
  /** Inside a start tag, between attributes. */
  Attributes,
  AttributeName,
  /** After an attribute name, before `=`. */
  AttributeEquals,
  /** After `=`, before the opening quote. */
  AttributeQuote,
  AttributeValue,
  /** After `/` in a start tag: `>` must follow. */
  SelfClose,
  CloseName,
  /** After `<!`: deciding between a comment, CDATA and a DOCTYPE. */
  Bang,
  Comment,
  Cdata,
  Doctype,
  Instruction,
  /** After `&`. */
  Entity,
}

const PREDEFINED: Readonly<Record<string, string>> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0d;
}

/** Characters that end a name: white space and the markup that can follow one. */
function endsName(c: number): boolean {
  return isSpace(c) || c === 0x3e || c === 0x2f || c === 0x3d || c === 0x3c || c === 0x22 || c === 0x27;
}

function isNameStart(c: number): boolean {
  return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f || c === 0x3a || c >= 0xc0;
}

function decodeReference(name: string): string | null {
  if (name.charCodeAt(0) !== 0x23) return PREDEFINED[name] ?? null;
  const hex = name.charCodeAt(1) === 0x78;
  const digits = name.slice(hex ? 2 : 1);
  if (digits === '' || !(hex ? /^[0-9a-fA-F]+$/ : /^[0-9]+$/).test(digits)) return null;
  const code = Number.parseInt(digits, hex ? 16 : 10);
  if (code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return null;
  return String.fromCodePoint(code);
}

export class XmlScanner {
  private state = State.Text;
  /** 1-based line and column of the character being read, for error messages. */
  line = 1;
  column = 0;
  private depth = 0;
  private sawRoot = false;
  /** The previous character was CR: a following LF is part of the same line break. */
  private afterCr = false;

  private name = '';
  private nameTooLong = false;
  private attributes: Record<string, string> = {};
  private attributeCount = 0;
  private attributeName = '';
  private quote = 0;
  private value = '';
  /** What an entity reference returns to: text or an attribute value. */
  private entityReturn = State.Text;
  private entity = '';
  /** Comment or CDATA text, and how many of its closing characters (`-`, `]`) were just seen. */
  private body = '';
  private closers = 0;
  /** DOCTYPE internal subset depth, and the quote a DOCTYPE is inside (0: none). */
  private bracketDepth = 0;

  constructor(
    private readonly events: XmlEvents,
    /** Cap on attribute values and comments, in characters. */
    private readonly maxValue: number,
  ) {}

  write(chunk: string): void {
    const events = this.events;
    const len = chunk.length;
    let i = 0;
    while (i < len) {
      if (this.state === State.Text) {
        i = this.scanText(chunk, i);
        continue;
      }
      if (this.state === State.Cdata) {
        i = this.scanCdata(chunk, i);
        continue;
      }
      const c = chunk.charCodeAt(i++);
      this.advance(c);
      switch (this.state) {
        case State.Open: this.open(c); break;
        case State.TagName:
          if (!endsName(c)) this.appendName(c);
          else if (this.nameTooLong) this.fail(`element name longer than ${MAX_NAME} characters`);
          else this.afterTagName(c);
          break;
        case State.Attributes: this.inAttributes(c); break;
        case State.AttributeName:
          if (!endsName(c)) this.appendName(c);
          else this.afterAttributeName(c);
          break;
        case State.AttributeEquals:
          if (c === 0x3d) this.state = State.AttributeQuote;
          else if (!isSpace(c)) this.fail('attribute without a value');
          break;
        case State.AttributeQuote:
          if (c === 0x22 || c === 0x27) {
            this.quote = c;
            this.value = '';
            this.state = State.AttributeValue;
          } else if (!isSpace(c)) this.fail('unquoted attribute value');
          break;
        case State.AttributeValue: this.inAttributeValue(c); break;
        case State.SelfClose:
          if (c !== 0x3e) {
            this.fail('"/" in a tag not followed by ">"');
            break;
          }
          this.emitOpen();
          this.emitClose();
          break;
        case State.CloseName:
          if (c === 0x3e) this.emitClose();
          else if (!endsName(c) || isSpace(c)) this.appendName(c);
          else this.fail('disallowed character in closing tag');
          break;
        case State.Bang: this.bang(c); break;
        case State.Comment: this.inComment(c); break;
        case State.Doctype: this.inDoctype(c); break;
        case State.Instruction:
          if (c === 0x3e && this.closers === 1) this.state = State.Text;
          this.closers = c === 0x3f ? 1 : 0;
          break;
        case State.Entity: this.inEntity(c, events); break;
      }
    }
  }

  /** Signals the end of input. */
  end(): void {
    if (this.state === State.Entity) this.flushEntity(false);
    if (this.state !== State.Text) this.events.error('the document ends inside markup');
    if (!this.sawRoot) this.events.error('document must contain a root element');
    else if (this.depth > 0) this.events.error(`${this.depth} element(s) not closed at the end of the document`);
    this.state = State.Text;
  }

  /** Keeps line and column up to date; CR LF, lone CR and LF each end one line. */
  private advance(c: number): void {
    if (c === 0x0a) {
      if (!this.afterCr) this.line++;
      this.column = 0;
    } else if (c === 0x0d) {
      this.line++;
      this.column = 0;
    } else {
      this.column++;
    }
    this.afterCr = c === 0x0d;
  }

  /** Text up to the next `<` or `&`, handed on in one piece per run; returns the position after the run. */
  private scanText(chunk: string, from: number): number {
    const len = chunk.length;
    let start = from;
    let i = from;
    for (; i < len; i++) {
      const c = chunk.charCodeAt(i);
      if (c === 0x3c || c === 0x26) break;
      if (c === 0x0d || (c === 0x0a && this.afterCr)) {
        // XML turns CR LF and lone CR into LF: the CR becomes the LF, a following LF is dropped.
        if (i > start) this.events.text(chunk.slice(start, i));
        if (c === 0x0d) this.events.text('\n');
        start = i + 1;
      }
      this.advance(c);
    }
    if (i > start) this.events.text(chunk.slice(start, i));
    if (i < len) {
      const c = chunk.charCodeAt(i);
      this.advance(c);
      if (c === 0x3c) this.state = State.Open;
      else this.startEntity(State.Text);
      i++;
    }
    return i;
  }

  private open(c: number): void {
    this.name = '';
    this.nameTooLong = false;
    if (c === 0x2f) this.state = State.CloseName;
    else if (c === 0x21) {
      this.body = '';
      this.state = State.Bang;
    } else if (c === 0x3f) {
      this.closers = 0;
      this.state = State.Instruction;
    } else if (isNameStart(c)) {
      this.attributes = {};
      this.attributeCount = 0;
      this.appendName(c);
      this.state = State.TagName;
    } else this.fail('disallowed character in tag name');
  }

  private appendName(c: number): void {
    if (this.name.length < MAX_NAME) this.name += String.fromCharCode(c);
    else this.nameTooLong = true;
  }

  private afterTagName(c: number): void {
    if (c === 0x3e) this.emitOpen();
    else if (c === 0x2f) this.state = State.SelfClose;
    else if (isSpace(c)) this.state = State.Attributes;
    else this.fail('disallowed character in tag name');
  }

  private inAttributes(c: number): void {
    if (isSpace(c)) return;
    if (c === 0x3e) this.emitOpen();
    else if (c === 0x2f) this.state = State.SelfClose;
    else if (isNameStart(c)) {
      this.attributeName = this.name;
      this.name = '';
      this.appendName(c);
      this.state = State.AttributeName;
    } else this.fail('disallowed character in attribute name');
  }

  private afterAttributeName(c: number): void {
    // The element's name waits in attributeName while an attribute's name is read.
    const elementName = this.attributeName;
    this.attributeName = this.name;
    this.name = elementName;
    if (c === 0x3d) this.state = State.AttributeQuote;
    else if (isSpace(c)) this.state = State.AttributeEquals;
    else this.fail('attribute without a value');
  }

  private inAttributeValue(c: number): void {
    if (c === this.quote) {
      if (this.attributeCount++ < MAX_ATTRIBUTES) this.attributes[this.attributeName] = this.value;
      this.state = State.Attributes;
    } else if (c === 0x26) this.startEntity(State.AttributeValue);
    else if (c === 0x3c) this.fail('"<" in an attribute value');
    else this.appendValue(isSpace(c) ? ' ' : String.fromCharCode(c));
  }

  private appendValue(text: string): void {
    if (this.value.length < this.maxValue) this.value += text;
  }

  private bang(c: number): void {
    this.body += String.fromCharCode(c);
    const seen = this.body;
    if (seen === '--') {
      this.body = '';
      this.closers = 0;
      this.state = State.Comment;
    } else if (seen === '[CDATA[') {
      this.body = '';
      this.closers = 0;
      this.state = State.Cdata;
    } else if (seen === 'DOCTYPE') {
      this.bracketDepth = 0;
      this.quote = 0;
      this.state = State.Doctype;
    } else if (!'--'.startsWith(seen) && !'[CDATA['.startsWith(seen) && !'DOCTYPE'.startsWith(seen)) {
      this.fail('disallowed markup after "<!"');
    }
  }

  private inComment(c: number): void {
    if (c === 0x2d) {
      this.closers++;
      return;
    }
    if (c === 0x3e && this.closers >= 2) {
      this.appendBody(this.closers - 2, c, false);
      this.events.comment(this.body);
      this.body = '';
      this.state = State.Text;
      return;
    }
    this.appendBody(this.closers, c, true);
    this.closers = 0;
  }

  /** Adds `dashes` dashes and (with `withChar`) the character `c` to a comment, up to the cap. */
  private appendBody(dashes: number, c: number, withChar: boolean): void {
    if (this.body.length >= this.maxValue) return;
    if (dashes > 0) this.body += this.run('-', dashes);
    if (withChar) this.body += String.fromCharCode(c);
  }

  /** `n` times `char`, at most as many as a value can hold (a run of a million `]` builds no million-character string). */
  private run(char: string, n: number): string {
    return char.repeat(Math.min(n, this.maxValue + 1));
  }

  /**
   * CDATA is text, handed on in runs; a `]` waits to see whether `]]>` follows. Returns the
   * position after what was read.
   */
  private scanCdata(chunk: string, from: number): number {
    const len = chunk.length;
    let start = from;
    for (let i = from; i < len; i++) {
      const c = chunk.charCodeAt(i);
      const lineBreak = c === 0x0d || (c === 0x0a && this.afterCr);
      this.advance(c);
      if (c === 0x3e && this.closers >= 2) {
        if (this.closers > 2) this.events.text(this.run(']', this.closers - 2));
        this.closers = 0;
        this.state = State.Text;
        return i + 1;
      }
      if (c === 0x5d) {
        if (i > start) this.events.text(chunk.slice(start, i));
        start = i + 1;
        this.closers++;
        continue;
      }
      if (this.closers > 0) {
        this.events.text(this.run(']', this.closers));
        this.closers = 0;
      }
      if (lineBreak) {
        if (i > start) this.events.text(chunk.slice(start, i));
        if (c === 0x0d) this.events.text('\n');
        start = i + 1;
      }
    }
    if (start < len) this.events.text(chunk.slice(start));
    return len;
  }

  /** Skipped up to its `>`, past an internal subset in brackets and quoted strings. */
  private inDoctype(c: number): void {
    if (this.quote !== 0) {
      if (c === this.quote) this.quote = 0;
    } else if (c === 0x22 || c === 0x27) this.quote = c;
    else if (c === 0x5b) this.bracketDepth++;
    else if (c === 0x5d) this.bracketDepth = Math.max(0, this.bracketDepth - 1);
    else if (c === 0x3e && this.bracketDepth === 0) this.state = State.Text;
  }

  private startEntity(returnTo: State): void {
    this.entityReturn = returnTo;
    this.entity = '';
    this.state = State.Entity;
  }

  private inEntity(c: number, events: XmlEvents): void {
    if (c === 0x3b) {
      this.flushEntity(true);
      return;
    }
    if (this.entity.length < MAX_ENTITY && !endsName(c) && c !== 0x26) {
      this.entity += String.fromCharCode(c);
      return;
    }
    events.error('"&" that starts no entity reference');
    this.flushEntity(false);
    // The character that ended the attempt is read again in the state returned to.
    this.reread(c);
  }

  /** Ends an entity reference: its character, or (undefined or unterminated) its raw text. */
  private flushEntity(terminated: boolean): void {
    const decoded = terminated ? decodeReference(this.entity) : null;
    if (terminated && decoded === null) this.events.error(`undefined entity "${this.entity.slice(0, MAX_ENTITY)}"`);
    const text = decoded ?? `&${this.entity}${terminated ? ';' : ''}`;
    this.state = this.entityReturn;
    if (this.state === State.Text) this.events.text(text);
    else this.appendValue(text);
  }

  private reread(c: number): void {
    if (this.state === State.Text) {
      if (c === 0x3c) this.state = State.Open;
      else if (c === 0x26) this.startEntity(State.Text);
      else this.events.text(c === 0x0d ? '\n' : String.fromCharCode(c));
    } else this.inAttributeValue(c);
  }

  private emitOpen(): void {
    if (this.depth === 0) {
      if (this.sawRoot) this.events.error('a second root element');
      this.sawRoot = true;
    }
    this.depth++;
    this.state = State.Text;
    this.events.openTag(this.name, this.attributes);
  }

  private emitClose(): void {
    this.state = State.Text;
    if (this.depth === 0) {
      this.events.error('closing tag without an open element');
      return;
    }
    this.depth--;
    this.events.closeTag();
  }

  /** A malformed piece of markup: reported, and reading resumes as text after it. */
  private fail(message: string): void {
    this.events.error(message);
    this.state = State.Text;
  }
}
