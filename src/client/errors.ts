/**
 * Errors raised by the client itself (never sent by the server): distinguishable from `McpError`,
 * which carries an error the server answered with.
 * @module
 */
import { ClientError } from '../protocol/errors.ts'

// Re-exported (documented): these are thrown by the fetch transport one layer down, and belong to the client's errors.
export { HttpError, InvalidResultError, NetworkError, OAuthError } from '../transport/errors.ts'

/** A request got no answer within the client's `requestTimeoutMs`. */
export class RequestTimeoutError extends ClientError {
  /** The limit that passed, in milliseconds. */
  readonly timeoutMs: number
  constructor(method: string, timeoutMs: number) {
    super('RequestTimeoutError', 'ERR_REQUEST_TIMEOUT', `No answer to ${method} within ${timeoutMs} ms`)
    this.timeoutMs = timeoutMs
  }
}

/** The server kept answering `InputRequiredResult` beyond the client's round limit. */
export class InputRequiredRoundsExceededError extends ClientError {
  /** The limit that was exceeded (retries allowed). */
  readonly maxRounds: number
  constructor(maxRounds: number) {
    super(
      'InputRequiredRoundsExceededError',
      'ERR_INPUT_REQUIRED_ROUNDS_EXCEEDED',
      `Server returned InputRequiredResult for more than ${maxRounds} rounds; raise maxRounds on the Client, ` +
        'or pass { manual: true } to drive the loop yourself.',
    )
    this.maxRounds = maxRounds
  }
}

/** The server asked for input (elicitation, sampling or roots) that this client has no callback for. */
export class MissingInputHandlerError extends ClientError {
  /** The capability the server asked for: `elicitation`, `sampling` or `roots`. */
  readonly capability: 'elicitation' | 'sampling' | 'roots'
  /** The `inputRequests` key of the request. */
  readonly key: string
  constructor(capability: 'elicitation' | 'sampling' | 'roots', key: string) {
    super(
      'MissingInputHandlerError',
      'ERR_MISSING_INPUT_HANDLER',
      `The server asked for ${capability} (input request '${key}') but this Client has no ${capability} callback`,
    )
    this.capability = capability
    this.key = key
  }
}

/** An input callback (elicitation, sampling, roots) returned something that is not a valid answer. */
export class InvalidInputResponseError extends ClientError {
  /** The `inputRequests` key whose answer was invalid. */
  readonly key: string
  constructor(key: string, detail: string) {
    super(
      'InvalidInputResponseError',
      'ERR_INVALID_INPUT_RESPONSE',
      `The answer to input request '${key}' is invalid: ${detail}`,
    )
    this.key = key
  }
}

/**
 * A `subscriptions/listen` stream broke after its acknowledgement without the server's closing result
 * (a network drop, a proxy timeout, a server restart). Notifications may have been missed: re-read what
 * you care about and listen again (spec: subscriptions.mdx "Graceful Closure").
 */
export class SubscriptionDroppedError extends ClientError {
  /** The id of the listen request (its subscriptionId). */
  readonly subscriptionId: string | number
  constructor(subscriptionId: string | number, cause: unknown) {
    super(
      'SubscriptionDroppedError',
      'ERR_SUBSCRIPTION_DROPPED',
      `Subscription ${JSON.stringify(subscriptionId)} dropped: ${cause instanceof Error && cause.name === 'SessionEnded' ? cause.message : "the stream closed without the server's closing result"}`,
      { cause },
    )
    this.subscriptionId = subscriptionId
  }
}
