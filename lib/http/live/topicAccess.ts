import type pg from 'pg';
import { parseTopic } from '../../live/topics.js';
import { foreignStationIds } from '../../accounts/stations.js';
import { findRadio } from '../../radios/radioStore.js';
import { restrictedOperator, type Principal } from '../v2/principal.js';

/**
 * Whether a principal may watch a live topic: the topic's object must be the token owner's,
 * and the token must hold the read scope of what the topic carries (QSOs or radios). Club
 * members below officer level watch only the radios they operate, and no club QSO topic: those
 * carry every operator's QSOs, of which such a member may read only its own (lib/qso/scope.ts).
 */
export async function mayWatchTopic(db: pg.Pool, principal: Principal, topic: string): Promise<{ ok: true } | { ok: false; scope?: string }> {
  const parsed = parseTopic(topic);
  if (!parsed) return { ok: false };
  const scope = parsed.kind === 'radio' || parsed.kind === 'radios_user' ? 'radio:read' : 'qso:read';
  if (!principal.scopes.has(scope)) return { ok: false, scope };
  const restricted = restrictedOperator(principal) !== null;
  switch (parsed.kind) {
    case 'qsos_user':
      return { ok: !restricted && parsed.id === principal.userId };
    case 'radios_user':
      return { ok: parsed.id === principal.userId };
    case 'station': {
      if (restricted) return { ok: false };
      return { ok: (await foreignStationIds(db, principal.userId, [parsed.id])).length === 0 };
    }
    case 'radio': {
      const operatorId = restricted ? principal.actingUserId : null;
      return { ok: (await findRadio(db, { userId: principal.userId, operatorId }, parsed.id)) !== null };
    }
  }
}
