import t from 'tap';
import { allFields, fieldInfo, isApplicationField, isHeaderField, isKnownField, qsoFieldNames } from '../../lib/adif/fields.js';

t.test('the catalogue holds every ADIF 3.1.6 field', async (t) => {
  t.equal(allFields().length, 186);
  t.equal(qsoFieldNames().length, 181, 'all but the five header fields');
  t.equal(qsoFieldNames()[0], 'ADDRESS');
  t.ok(qsoFieldNames().includes('CALL'));
  t.ok(qsoFieldNames().includes('VE_PROV'), 'import-only fields can still appear in records');
  t.notOk(qsoFieldNames().includes('ADIF_VER'));
});

t.test('fieldInfo is case-insensitive and carries type, enumeration, flags and range', async (t) => {
  t.same(fieldInfo('cqz'), {
    name: 'CQZ',
    dataType: 'PositiveInteger',
    enumeration: null,
    header: false,
    importOnly: false,
    minimum: 1,
    maximum: 40,
  });
  t.same(fieldInfo('Qsl_Rcvd'), {
    name: 'QSL_RCVD',
    dataType: 'Enumeration',
    enumeration: 'QSL_Rcvd',
    header: false,
    importOnly: false,
    minimum: null,
    maximum: null,
  });
  t.equal(fieldInfo('STATE')!.enumeration, 'Primary_Administrative_Subdivision', 'the [DXCC] qualifier is removed');
  t.equal(fieldInfo('CREDIT_SUBMITTED')!.enumeration, 'Credit');
  t.equal(fieldInfo('QSO_DATE')!.dataType, 'Date');
  t.equal(fieldInfo('TIME_ON')!.dataType, 'Time');
  t.equal(fieldInfo('GRIDSQUARE')!.dataType, 'GridSquare');
  t.equal(fieldInfo('K_INDEX')!.minimum, 0);
  t.equal(fieldInfo('K_INDEX')!.maximum, 9);
  t.ok(fieldInfo('VE_PROV')!.importOnly);
  t.ok(fieldInfo('GUEST_OP')!.importOnly);
  t.ok(fieldInfo('PROGRAMID')!.header);
  t.equal(fieldInfo('USERDEF3')!.name, 'USERDEFn');
  t.equal(fieldInfo('userdef12')!.name, 'USERDEFn');
  t.equal(fieldInfo('USERDEF0'), undefined);
  t.equal(fieldInfo('NOT_A_FIELD'), undefined);
  t.equal(fieldInfo('APP_N1MM_EXCHANGE1'), undefined);
});

t.test('isKnownField accepts catalogue, USERDEFn and APP_ names', async (t) => {
  for (const name of ['CALL', 'call', 'My_Gridsquare', 'USERDEF1', 'APP_N1MM_EXCHANGE1', 'app_lotw_rxqsl', 'APP_LoTW_2XQSL']) {
    t.ok(isKnownField(name), name);
  }
  for (const name of ['', 'FOO', 'APP_', 'APP_N1MM', 'APP_N1MM_', 'USERDEF', 'USERDEFX', 'CALLSIGN']) t.notOk(isKnownField(name), name);
  t.ok(isApplicationField('APP_N1MM_EXCHANGE1'));
  t.notOk(isApplicationField('CALL'));
});

t.test('isHeaderField', async (t) => {
  for (const name of ['ADIF_VER', 'adif_ver', 'CREATED_TIMESTAMP', 'PROGRAMID', 'PROGRAMVERSION', 'USERDEF1']) t.ok(isHeaderField(name), name);
  for (const name of ['CALL', 'QSO_DATE', 'APP_X_Y', 'FOO']) t.notOk(isHeaderField(name), name);
});
