import type { ResourceDefinition } from '../../resource.js';
import { createQso } from './create.js';
import { listQsos } from './list.js';
import { removeQso } from './remove.js';
import { showQso } from './show.js';
import { updateQso } from './update.js';
import { changeListSchema, changesQuerySchema, listChanges } from './changes.js';
import {
  adifExportSchema, createBodySchema, importSummarySchema, listQuerySchema, qsoSchema, updateBodySchema, uploadBodies, uploadQuerySchema,
} from './schemas.js';
import { jobSchema } from '../import/present.js';

/** Contacts of the token owner's station locations: list/export, one, create/import, update, delete. */
export const qsoResource: ResourceDefinition = {
  name: 'qso',
  description: "QSOs of the token owner's station locations (club members below officer level: their own)",
  scoped: true,
  list: {
    summary: 'Filtered QSOs, newest first (JSON), or an ADIF export batch ascending by id (format=adif)',
    query: listQuerySchema,
    response: { oneOf: [{ type: 'array', items: qsoSchema }, adifExportSchema] },
    handler: listQsos,
  },
  show: { summary: 'One QSO', response: qsoSchema, handler: showQso },
  create: {
    summary: 'Create one QSO, many (qsos), or import an ADIF document (import_type adif, or the file itself as the body or in a form)',
    bodyMode: 'stream',
    query: uploadQuerySchema,
    body: createBodySchema,
    otherBodies: uploadBodies,
    otherResponses: {
      200: { description: 'A dry run', data: importSummarySchema },
      202: { description: 'A file upload with Prefer: respond-async (or async=true): the import job, at Location /api/v2/import/{id}', data: jobSchema },
    },
    response: { oneOf: [qsoSchema, importSummarySchema] },
    handler: createQso,
  },
  update: { summary: 'Change some fields of a QSO', body: updateBodySchema, response: qsoSchema, handler: updateQso },
  remove: { summary: 'Delete a QSO with its QSL images, OQRS requests and contest links', handler: removeQso },
  views: {
    changes: {
      summary: 'The change feed: every QSO created, changed or deleted after `cursor`, in commit-safe order (docs/change-feed.md)',
      query: changesQuerySchema,
      response: changeListSchema,
      handler: listChanges,
    },
  },
};
