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
 * Something in the input that could not be read as written; reading goes on after it.
 * `recordNo` is the 1-based number of the record being read (0 while reading the header),
 * `line` the 1-based line of the offending tag. `message` already names both.
 */
export interface AdifProblem {
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
