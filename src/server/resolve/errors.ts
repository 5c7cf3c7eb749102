/**
 * The errors of dependency injection: a resolver graph that cannot work (found at registration), and a
 * resolver that could not produce a value (found while a call runs).
 * @module
 */
import { ServerError } from '../../protocol/errors.ts'

/** A resolver graph or a form schema that cannot work, found when it is declared or registered. */
export class InvalidSignatureError extends ServerError {
  constructor(message: string, options?: ErrorOptions) {
    super('InvalidSignatureError', 'ERR_INVALID_SIGNATURE', message, options)
  }
}

/** A resolver could not produce a value (decline, cancel, a wrong answer): the call ends as a tool error. */
export class ResolutionError extends ServerError {
  constructor(message: string, options?: ErrorOptions) {
    super('ResolutionError', 'ERR_RESOLUTION', message, options)
  }
}

/**
 * The user declined or cancelled a question whose answer a resolver's consumer needed as a plain value:
 * the call ends with "The user declined: <question>" (or "cancelled"), said in the user's terms.
 */
export class RefusalError extends ResolutionError {
  override readonly name: string = 'RefusalError'
  /** What the user did. */
  readonly action: 'decline' | 'cancel'
  /** The question's message, as the user saw it. */
  readonly question: string
  constructor(action: 'decline' | 'cancel', question: string) {
    super(`The user ${refusalVerb(action)}: ${question}`)
    this.action = action
    this.question = question
  }
}

/** `declined` / `cancelled`. */
export function refusalVerb(action: 'decline' | 'cancel'): string {
  return action === 'decline' ? 'declined' : 'cancelled'
}
