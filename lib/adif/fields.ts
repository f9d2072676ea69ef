import { fieldRecords } from './spec.js';

/** One ADIF field as the specification defines it. */
export interface FieldInfo {
  /** Upper-case ADIF name, e.g. "QSO_DATE"; "USERDEFn" stands for USERDEF1, USERDEF2, … */
  readonly name: string;
  /** ADIF data type name, e.g. "Date", "PositiveInteger", "GridSquareList" ("CreditList,AwardList" for CREDIT_*). */
  readonly dataType: string;
  /** The enumeration the values come from (qualifier such as "[DXCC]" removed), e.g. "QSL_Rcvd"; null if none. */
  readonly enumeration: string | null;
  /** Belongs to the file header (ADIF_VER, PROGRAMID, …), not to QSO records. */
  readonly header: boolean;
  /** Deprecated: readers accept it, writers must not produce it. */
  readonly importOnly: boolean;
  /** Inclusive numeric range from the specification, where it gives one. */
  readonly minimum: number | null;
  readonly maximum: number | null;
}

function optionalNumber(text: string | undefined): number | null {
  return text === undefined || text === '' ? null : Number(text);
}

const FIELDS: readonly FieldInfo[] = fieldRecords().map((row) => ({
  name: row['Field Name']!,
  dataType: row['Data Type']!,
  enumeration: row['Enumeration']?.split(/[[,]/, 1)[0] || null,
  header: row['Header Field'] === 'true',
  importOnly: row['Import-only'] === 'true',
  minimum: optionalNumber(row['Minimum Value']),
  maximum: optionalNumber(row['Maximum Value']),
}));

const FIELDS_BY_NAME: ReadonlyMap<string, FieldInfo> = new Map(FIELDS.map((field) => [field.name, field]));

const USERDEF_FIELD = FIELDS_BY_NAME.get('USERDEFn')!;
const USERDEF_NAME = /^USERDEF[1-9]\d*$/;

/** APP_<PROGRAMID>_<FIELDNAME>: application-defined fields carried through unchanged. */
const APP_FIELD_NAME = /^APP_[^_]+_./;

const QSO_FIELD_NAMES: readonly string[] = FIELDS.filter((field) => !field.header).map((field) => field.name);

/** The catalogue entry of an ADIF field (any case); USERDEF1, USERDEF2, … give the USERDEFn entry. */
export function fieldInfo(name: string): FieldInfo | undefined {
  const upper = name.toUpperCase();
  return FIELDS_BY_NAME.get(upper) ?? (USERDEF_NAME.test(upper) ? USERDEF_FIELD : undefined);
}

/** An application-defined field name, APP_<PROGRAMID>_<NAME> (any case). */
export function isApplicationField(name: string): boolean {
  return APP_FIELD_NAME.test(name.toUpperCase());
}

/** Whether `name` (any case) is an ADIF field, a USERDEFn header field or an APP_ field. */
export function isKnownField(name: string): boolean {
  return fieldInfo(name) !== undefined || isApplicationField(name);
}

/** Whether `name` (any case) belongs to the file header only. */
export function isHeaderField(name: string): boolean {
  return fieldInfo(name)?.header === true;
}

/** Every field a QSO record may carry (import-only ones included), upper-case, in specification order. */
export function qsoFieldNames(): readonly string[] {
  return QSO_FIELD_NAMES;
}

/** The whole catalogue, in specification order. */
export function allFields(): readonly FieldInfo[] {
  return FIELDS;
}
