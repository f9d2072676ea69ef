import t from 'tap';
import { isValidCallsign, normalizeCallsign } from '../../lib/adif/callsign.js';

t.test('normalizeCallsign trims, upper-cases and turns slashed zeros into digits', async (t) => {
  const cases: [string, string][] = [
    ['dl1abc', 'DL1ABC'],
    [' DL1ABC ', 'DL1ABC'],
    ['DLØABC', 'DL0ABC'],
    ['dløabc', 'DL0ABC'],
    ['ØØ1Ø', '0010'],
    ['dl/g4abc/p', 'DL/G4ABC/P'],
    ['', ''],
  ];
  for (const [input, call] of cases) t.equal(normalizeCallsign(input), call, input);
});

t.test('isValidCallsign: letters, digits, "/" and "-", 1 to 32 characters', async (t) => {
  const valid = ['DL1ABC', 'dl1abc', 'DL/G4ABC/P', 'VK9/W1AW', 'PA3XYZ/MM', 'W1AW-1', '4U1UN', 'K', 'DL', 'A'.repeat(32)];
  for (const call of valid) t.ok(isValidCallsign(call), call);
  const invalid = ['', 'DL1 ABC', 'DL1ABC.', 'DL1ABC,', 'DL1_ABC', 'DL1ABC!', '/', '-', '/-/', 'A'.repeat(33), 'DLØABC', 'DL1ABC\n'];
  for (const call of invalid) t.notOk(isValidCallsign(call), JSON.stringify(call));
});
