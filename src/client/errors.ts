/**
 * Errors raised by the client itself (never sent by the server): distinguishable from `McpError`,
 * which carries an error the server answered with.
 * @module
 */

/** An HTTP failure whose body was not a JSON-RPC message (proxy errors, 5xx pages, 401 without body). */
export class HttpError extends Error {
  override readonly name: string = 'HttpError'
  /** The HTTP status code. */
  readonly status: number
  /** The response body as text (may be empty). */
  readonly body: string
  constructor(status: number, body: string) {
    super(`HTTP ${status}${body ? `: ${body.slice(0, 200)}` : ''}`)
    this.status = status
    this.body = body
  }
}

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

/** The server answered something that is not a valid MCP result for the method. */
export class InvalidResultError extends Error {
  override readonly name: string = 'InvalidResultError'
}
