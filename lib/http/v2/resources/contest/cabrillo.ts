import type { RequestContext, HandlerResult, JsonSchema } from '../../resource.js';
import { notFound, validationError } from '../../../errors.js';
import { openCabrilloExport } from '../../../../export/cabrillo/export.js';
import { CabrilloOptionError, OPTION_NAMES, readCabrilloOptions, type CabrilloOptions } from '../../../../export/cabrillo/options.js';
import { qsoScope } from '../../../../qso/scope.js';

/** The formats of `GET /contest/{id}` besides the session object. */
export const CABRILLO_FORMATS = ['cabrillo', 'cabrillo-report'] as const;

/** The show's query: the format and the header values a person chooses (lib/export/cabrillo/options.ts). */
export const cabrilloQuery: JsonSchema = {
  type: 'object',
  properties: {
    format: { type: 'string', enum: [...CABRILLO_FORMATS], description: 'cabrillo: the Cabrillo 3.0 log; cabrillo-report: its checks as JSON' },
    ...Object.fromEntries(OPTION_NAMES.map((name) => [name, { type: 'string', description: 'Cabrillo header value (docs/cabrillo.md)' }])),
  },
};

function readOptions(query: Record<string, string>): CabrilloOptions {
  try {
    return readCabrilloOptions(query);
  } catch (error) {
    if (error instanceof CabrilloOptionError) throw validationError(error.message, { field: error.field });
    throw error;
  }
}

/**
 * A session as Cabrillo: the log as text/plain with its checks counted in `X-Cabrillo-Problems`
 * (`format=cabrillo`), or the checks with their examples as JSON (`format=cabrillo-report`).
 * The QSOs are those the token may see (a club member below officer: their own).
 */
export async function answerCabrillo({ ctx, id, query, principal, services }: RequestContext): Promise<HandlerResult | undefined> {
  const options = readOptions(query);
  const exported = await openCabrilloExport(services.bulkDb, {
    sessionId: Number(id), userId: principal.userId, scope: qsoScope(principal, principal.stationIds), options,
  });
  if (!exported) throw notFound('Contest session not found');
  if (query.format === 'cabrillo-report') {
    exported.document.destroy();
    return { data: { qso_count: exported.qsoCount, problem_count: exported.problemCount, problems: exported.problems } };
  }
  ctx.set('X-Cabrillo-Problems', JSON.stringify(Object.fromEntries(exported.problems.map((problem) => [problem.kind, problem.count]))));
  ctx.set('Content-Disposition', `attachment; filename="${exported.fileName}"`);
  ctx.type = 'text/plain; charset=utf-8';
  ctx.body = exported.document;
  return undefined;
}
