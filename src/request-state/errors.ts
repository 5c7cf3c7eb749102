/**
 * The one error a request-state codec throws.
 * @module
 */
import { ServerError } from '../protocol/errors.ts'

/**
 * Thrown by a request-state codec for any token it did not mint unmodified. `reason` is a short,
 * log-only code (≤ 40 characters) that never contains the token or its plaintext; the wire always
 * answers with the one frozen error `-32602 "Invalid or expired requestState"`.
 */
export class InvalidRequestStateError extends ServerError {
  static readonly code = 'ERR_INVALID_REQUEST_STATE' as const
  readonly code = 'ERR_INVALID_REQUEST_STATE' as const
  override readonly name: string = 'InvalidRequestStateError'
  /** Why the token was rejected: `malformed`, `unknown key`, `seal`, `expired`, `request binding`, … */
  readonly reason: string
  constructor(reason: string) {
    super(`invalid requestState: ${reason}`)
    this.reason = reason
  }
}
