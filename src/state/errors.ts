/**
 * @module
 */

/**
 * Thrown by a request-state codec for any token it did not mint unmodified. `reason` is a short,
 * log-only code (≤ 40 characters) that never contains the token or its plaintext; the wire always
 * answers with the one frozen error `-32602 "Invalid or expired requestState"`.
 */
export class InvalidRequestStateError extends Error {
  override readonly name: string = 'InvalidRequestStateError'
  readonly code = 'ERR_INVALID_REQUEST_STATE'
  /** Why the token was rejected: `malformed`, `unknown key`, `seal`, `expired`, `request binding`, … */
  readonly reason: string
  constructor(reason: string) {
    super(`invalid requestState: ${reason}`)
    this.reason = reason
  }
}
