import type pg from 'pg';
import { parseTopic } from '../../live/topics.js';
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
      const { rowCount } = await db.query('SELECT 1 FROM stations WHERE id = $1 AND user_id = $2', [parsed.id, principal.userId]);
      return { ok: (rowCount ?? 0) > 0 };
    }
    case 'radio': {
      const member = restricted ? principal.actingUserId : null;
      const { rowCount } = await db.query(
        'SELECT 1 FROM radios WHERE id = $1 AND user_id = $2 AND ($3::int IS NULL OR operator_id = $3)',
        [parsed.id, principal.userId, member],
      );
      return { ok: (rowCount ?? 0) > 0 };
    }
  }
}
