/**
 * The error codes of the v2 interface (SPEC.md "Errors"), plus payload_too_large for the body
 * limit, server_busy (503) for a process receiving its most uploads, and those of the browser
 * app's session endpoints (docs/app-session.md).
 */
export type ErrorCode =
  | 'validation_error'
  | 'invalid_json'
  | 'unauthorized'
  | 'invalid_token'
  | 'token_expired'
  | 'insufficient_scope'
  | 'forbidden'
  | 'insufficient_club_permission'
  | 'club_access_revoked'
  | 'not_found'
  | 'method_not_allowed'
  | 'conflict'
  | 'cursor_expired'
  | 'payload_too_large'
  | 'rate_limited'
  | 'server_busy'
  | 'internal_error'
  | 'invalid_credentials'
  | 'signed_out'
  | 'csrf'
  | 'cross_origin';

export type ErrorDetails = Record<string, unknown>;

/** An error that becomes an `{error:{code,message,details}}` response with its status. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly details: ErrorDetails = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export const validationError = (message: string, details: ErrorDetails = {}) =>
  new ApiError(400, 'validation_error', message, details);
export const notFound = (message = 'Resource not found') => new ApiError(404, 'not_found', message);
export const forbidden = (message: string, details: ErrorDetails = {}) => new ApiError(403, 'forbidden', message, details);
export const conflict = (message: string, details: ErrorDetails = {}) => new ApiError(409, 'conflict', message, details);
