import t from 'tap';
import { pushOf } from '../../lib/publicLog/pushes.js';
import type { PublicLog } from '../../lib/publicLog/present.js';

const log = (worked: PublicLog['map']['worked']): PublicLog => ({
  callsigns: ['EA8X'], qsos: 3, recent: [], last_hour: [], banner: '', show_times: false, show_frequency: true,
  map: { stations: [{ lat: 28, lng: -16 }], worked },
});

t.test('a push holds the whole map first, then only the positions that changed', async (t) => {
  const first = pushOf(log([{ lat: 1, lng: 2, qsos: 1 }, { lat: 3, lng: 4, qsos: 2 }]), undefined);
  t.same(first.push.log.map, { stations: [{ lat: 28, lng: -16 }], worked: [{ lat: 1, lng: 2, qsos: 1 }, { lat: 3, lng: 4, qsos: 2 }], complete: true });
  const next = pushOf(log([{ lat: 1, lng: 2, qsos: 1 }, { lat: 5, lng: 6, qsos: 1 }]), first.positions);
  t.same(next.push.log.map.worked, [{ lat: 5, lng: 6, qsos: 1 }, { lat: 3, lng: 4, qsos: 0 }], 'a new position, and one gone as qsos 0; the unchanged one left out');
  t.equal(next.push.log.map.complete, false);
  t.same(pushOf(log([{ lat: 1, lng: 2, qsos: 1 }, { lat: 5, lng: 6, qsos: 1 }]), next.positions).push.log.map.worked, [], 'nothing changed, nothing sent');
  t.same(Object.keys(first.push.log).sort(), ['banner', 'callsigns', 'last_hour', 'map', 'qsos', 'recent', 'show_frequency', 'show_times'], 'the JSON\'s members, nothing more');
});
