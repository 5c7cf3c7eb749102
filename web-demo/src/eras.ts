/**
 * Which protocol era the demo's `Client` speaks, said in words, and — for a 2025-era server, where there
 * are no input-required rounds — a record of the server's own requests the callbacks answered during a
 * call (what was asked, what went back), so the rounds view still shows the conversation.
 * @module
 */
import type { Client, ElicitationCallback, InputContext, SamplingCallback } from '../../src/client/index.ts'
import type { InputRequest } from '../../src/index.ts'

/** Whether `client` (after its first request) speaks to a 2025-era server, in a session. */
export function isLegacy(client: Client): boolean {
  return client.era === 'legacy'
}

/** The era in a few words, for the status line: `MCP 2026-07-28` or `MCP 2025-11-25 (session)`. */
export function eraLabel(client: Client): string {
  return `MCP ${client.protocolVersion}${isLegacy(client) ? ' (session)' : ''}`
}

/** What the rounds view shows under its heading: the era and how the server's questions arrive in it. */
export function eraExplanation(client: Client): string {
  return isLegacy(client)
    ? `${eraLabel(client)}: the server asks on the request's stream; no rounds. ` +
        'Each request it sent during the call is listed with the answer that went back.'
    : `${eraLabel(client)}: input-required rounds. ` +
        'The server answers with its questions; the client answers them and retries with the opaque requestState.'
}

/** Shows one server→client request: called when it arrives, and again with the answer (or the failure). */
export interface ServerRequestView {
  asked(ctx: InputContext, request: InputRequest): { answered(answer: unknown): void; failed(error: unknown): void }
}

/**
 * The demo's elicitation and sampling callbacks, each wrapped so that a 2025-era server's request (asked
 * inside the call, not as a round) is shown by `view` along with its answer. With a 2026-07-28 server the
 * callbacks run unwrapped in effect: `onRound` already shows every question.
 */
export function recorded(
  client: () => Client,
  view: ServerRequestView,
  callbacks: { elicitation: ElicitationCallback; sampling: SamplingCallback },
): { elicitation: ElicitationCallback; sampling: SamplingCallback } {
  async function record<P, R>(
    method: InputRequest['method'],
    params: P,
    ctx: InputContext,
    answer: () => R | Promise<R>,
  ): Promise<R> {
    if (!isLegacy(client())) return answer()
    const shown = view.asked(ctx, { method, params } as InputRequest)
    try {
      const result = await answer()
      shown.answered(result)
      return result
    } catch (error) {
      shown.failed(error)
      throw error
    }
  }
  return {
    elicitation: (params, ctx) => record('elicitation/create', params, ctx, () => callbacks.elicitation(params, ctx)),
    sampling: (params, ctx) => record('sampling/createMessage', params, ctx, () => callbacks.sampling(params, ctx)),
  }
}
