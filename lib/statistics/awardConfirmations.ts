import type { ConfirmationType } from '../qso/confirmationTypes.js';

/**
 * The confirmations that make a QSO "confirmed" for awards (DXCC counts, the lookups'
 * confirmed flags): paper QSL and LoTW, the two the DXCC programme accepts.
 */
export const AWARD_CONFIRMATIONS: readonly ConfirmationType[] = ['qsl', 'lotw'];
