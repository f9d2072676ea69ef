import Router from '@koa/router';
import type { Services } from '../../services.js';
import { membershipsOf } from '../../accounts/clubs.js';
import { passwordHashOf, setPassword } from '../../accounts/users.js';
import { hashPassword, passwordProblem, verifyPassword } from '../../auth/passwords.js';
import { actAs, endSession, startSession } from '../../auth/sessions.js';
import { clientAddress } from '../clientAddress.js';
import { ApiError, forbidden, validationError } from '../errors.js';
import { readAppBody, stringField } from './body.js';
import { credentialRoutes } from './credentials.js';
import { exportRoutes } from './export.js';
import { chargeAttempt, signIn } from './signIn.js';
import { APP_PREFIX, SESSION_COOKIE, refuseCrossOrigin, requireSession, sessionBody, sessionSettings, setSessionCookie } from './session.js';

/**
 * The browser app's session endpoints (docs/app-session.md): sign-in, the session, the password,
 * acting for a club, and the user's tokens and keys. The cookie authenticates these only; the
 * app calls /api/v2 with the session's api token, as any client does.
 */
export function appRouter(services: Services): Router {
  const router = new Router({ prefix: APP_PREFIX.slice(0, -1) });
  const settings = sessionSettings(services.config);

  router.use(async (ctx, next) => {
    ctx.state.resource = 'app';
    ctx.set('Cache-Control', 'no-store');
    refuseCrossOrigin(ctx);
    await next();
  });

  router.post('/session', async (ctx) => {
    const body = await readAppBody(ctx);
    const username = stringField(body, 'username');
    const password = stringField(body, 'password');
    const user = await signIn(services, clientAddress(ctx, services.config), username, password);
    const { secret, session } = await startSession(services.db, user, settings, ctx.cookies.get(SESSION_COOKIE));
    setSessionCookie(ctx, secret, new Date(Date.now() + settings.absoluteSeconds * 1000));
    ctx.body = await sessionBody(services, session);
  });

  router.get('/session', async (ctx) => {
    ctx.body = await sessionBody(services, await requireSession(ctx, services, { csrf: false, renew: true }));
  });

  router.delete('/session', async (ctx) => {
    const session = await requireSession(ctx, services, { csrf: true });
    await endSession(services.db, session.id);
    setSessionCookie(ctx, null);
    services.logger.info('signed out', { user_id: session.user.id });
    ctx.status = 204;
  });

  router.post('/password', async (ctx) => {
    const session = await requireSession(ctx, services, { csrf: true });
    const body = await readAppBody(ctx);
    const current = stringField(body, 'current_password');
    const problem = passwordProblem(body.new_password);
    if (problem) throw validationError(problem, { field: 'new_password' });
    const confirm = await chargeAttempt(services, clientAddress(ctx, services.config), session.user.username);
    if (!(await verifyPassword(current, await passwordHashOf(services.db, session.user.id)))) {
      services.logger.warn('password change refused: wrong current password', { user_id: session.user.id });
      throw new ApiError(403, 'invalid_credentials', 'The current password is wrong.', { field: 'current_password' });
    }
    await confirm();
    await setPassword(services.db, session.user.id, await hashPassword(body.new_password as string));
    setSessionCookie(ctx, null);
    services.logger.info('password changed; every session of the user ended', { user_id: session.user.id });
    ctx.status = 204;
  });

  router.post('/acting-as', async (ctx) => {
    const session = await requireSession(ctx, services, { csrf: true });
    const clubId = (await readAppBody(ctx)).club_id;
    if (clubId !== null && !(typeof clubId === 'number' && Number.isSafeInteger(clubId))) {
      throw validationError('club_id must be a clubstation id, or null for your own account', { field: 'club_id' });
    }
    const membership = clubId === null ? null : (await membershipsOf(services.db, session.user.id)).find((club) => club.club_id === clubId);
    if (membership === undefined) throw forbidden('You are not a member of this clubstation.', { club_id: clubId });
    const secret = ctx.cookies.get(SESSION_COOKIE)!;
    const switched = await actAs(services.db, secret, session, membership, settings);
    services.logger.info('acting as', { user_id: session.user.id, club_id: clubId });
    ctx.body = await sessionBody(services, switched);
  });

  credentialRoutes(router, services);
  exportRoutes(router, services);
  return router;
}
