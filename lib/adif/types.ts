/**
 * Items produced by the ADIF (.adi) and ADX (.adx) readers. Both readers emit the
 * same sequence: exactly one header item first, then records and problems in
 * document order.
 */

/** The file header. Field names are upper-case. */
export interface AdifHeader {
  /** Free text before the first tag (trimmed); empty when there is none. */
  comment: string;
  fields: Record<string, string>;
}

/**
 * What kind of problem a reader met; stable, so that messages can be grouped and counted by it.
 * - `record_split`: CALL, QSO_DATE or TIME_ON occurred again before `<EOR>` (.adi): read as the
 *   start of a new record;
 * - `repeated_field`: any other field occurred twice in one record with different values: the
 *   first value is kept;
 * - `invalid_length`, `length_too_large`, `missing_name`, `truncated_value`: a malformed `.adi`
 *   tag, whose value is skipped;
 * - `value_too_long`: a value longer than the maximum, dropped;
 * - `xml_error`: the ADX document is not well-formed XML at that point;
 * - `ignored_element`: an ADX element that carries no usable field.
 */
export type AdifProblemCode =
  | 'record_split'
  | 'repeated_field'
  | 'invalid_length'
  | 'length_too_large'
  | 'missing_name'
  | 'truncated_value'
  | 'value_too_long'
  | 'xml_error'
  | 'ignored_element';

/**
 * Something in the input that could not be read as written; reading goes on after it.
 * `recordNo` is the 1-based number of the record being read (0 while reading the header),
 * `line` the 1-based line of the offending tag. `message` already names both, and quotes
 * input only as short escaped excerpts (lib/adif/excerpt.ts).
 */
export interface AdifProblem {
  code: AdifProblemCode;
  recordNo: number;
  line: number;
  message: string;
}

/** One QSO: upper-case field names; `line` is where its first field starts. */
export interface AdifRecord {
  fields: Record<string, string>;
  recordNo: number;
  line: number;
}

export type AdifItem =
  | { kind: 'header'; header: AdifHeader }
  | { kind: 'record'; fields: Record<string, string>; recordNo: number; line: number }
  | { kind: 'problem'; problem: AdifProblem };

export interface AdifParseResult {
  header: AdifHeader;
  records: AdifRecord[];
  problems: AdifProblem[];
}
