/**
 * Errors raised by the client itself (never sent by the server): distinguishable from `McpError`,
 * which carries an error the server answered with.
 * @module
 */
export { HttpError, InvalidResultError, NetworkError, RequestTimeoutError } from '../transport/errors.ts'

/** The server kept answering `InputRequiredResult` beyond the client's round limit. */
export class InputRequiredRoundsExceededError extends Error {
  override readonly name: string = 'InputRequiredRoundsExceededError'
  /** The limit that was exceeded (retries allowed). */
  readonly maxRounds: number
  constructor(maxRounds: number) {
    super(
      `Server returned InputRequiredResult for more than ${maxRounds} rounds; raise maxRounds on the Client, ` +
        'or pass { manual: true } to drive the loop yourself.',
    )
    this.maxRounds = maxRounds
  }
}

/** The server asked for input (elicitation, sampling or roots) that this client has no callback for. */
export class MissingInputHandlerError extends Error {
  override readonly name: string = 'MissingInputHandlerError'
  /** The capability the server asked for: `elicitation`, `sampling` or `roots`. */
  readonly capability: 'elicitation' | 'sampling' | 'roots'
  /** The `inputRequests` key of the request. */
  readonly key: string
  constructor(capability: 'elicitation' | 'sampling' | 'roots', key: string) {
    super(`The server asked for ${capability} (input request '${key}') but this Client has no ${capability} callback`)
    this.capability = capability
    this.key = key
  }
}

/** An input callback (elicitation, sampling, roots) returned something that is not a valid answer. */
export class InvalidInputResponseError extends Error {
  override readonly name: string = 'InvalidInputResponseError'
  /** The `inputRequests` key whose answer was invalid. */
  readonly key: string
  constructor(key: string, detail: string) {
    super(`The answer to input request '${key}' is invalid: ${detail}`)
    this.key = key
  }
}

/**
 * A `subscriptions/listen` stream broke after its acknowledgement without the server's closing result
 * (a network drop, a proxy timeout, a server restart). Notifications may have been missed: re-read what
 * you care about and listen again (spec: subscriptions.mdx "Graceful Closure").
 */
export class SubscriptionDroppedError extends Error {
  override readonly name: string = 'SubscriptionDroppedError'
  /** The id of the listen request (its subscriptionId). */
  readonly subscriptionId: string | number
  constructor(subscriptionId: string | number, cause: unknown) {
    super(`Subscription ${JSON.stringify(subscriptionId)} dropped: the stream closed without the server's closing result`, { cause })
    this.subscriptionId = subscriptionId
  }
}
