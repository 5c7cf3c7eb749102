/**
 * Provisional copies of the client middleware shapes (ClientRequestCall…), until the real ones are
 * exported by edge-mcp/client.
 * @internal
 */
export interface ClientCall {
  readonly method: 'tools/call' | 'prompts/get' | 'resources/read'
  readonly target: string
  readonly arguments: Readonly<Record<string, unknown>> | undefined
}
export interface ClientRoundCall {
  readonly call: ClientCall
  readonly round: number
}
export interface ClientRequestCall {
  readonly method: string
  readonly params: Readonly<Record<string, unknown>>
  readonly meta: Record<string, unknown>
  readonly era: 'modern' | 'legacy'
  readonly protocolVersion: string
  readonly transport: string
  readonly round?: ClientRoundCall
}
export interface ClientAnswerCall {
  readonly key: string
  readonly method: 'elicitation/create' | 'sampling/createMessage' | 'roots/list'
  readonly era: 'modern' | 'legacy'
  readonly round?: ClientRoundCall
  readonly request?: ClientRequestCall
}
export interface ClientMiddleware {
  request?(call: ClientRequestCall, next: () => Promise<Record<string, unknown>>): Promise<Record<string, unknown>>
  call?(call: ClientCall, next: () => Promise<unknown>): Promise<unknown>
  round?(call: ClientRoundCall, next: () => Promise<unknown>): Promise<unknown>
  answer?(call: ClientAnswerCall, next: () => Promise<unknown>): Promise<unknown>
}
