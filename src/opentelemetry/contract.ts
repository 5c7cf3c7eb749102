/**
 * Provisional copies of the middleware shapes (server: RequestCall…; client: ClientRequestCall…), until
 * the real ones are exported by edge-mcp/server and edge-mcp/client.
 * @internal
 */
import type { RequestId } from '../protocol/schemas/common.ts'
import type { RequestInfo, ResultObject } from '../server/context.ts'

export interface RequestCall {
  readonly method: string
  readonly requestId: RequestId
  readonly params: Readonly<Record<string, unknown>>
  readonly era: 'modern' | 'legacy'
  readonly protocolVersion: string
  readonly sessionId: string | undefined
  readonly transport: 'http' | 'stdio' | undefined
  readonly info: RequestInfo
  readonly principal: string | undefined
  readonly round: number
  readonly carry: Record<string, string>
  readonly meta: Record<string, unknown>
}
export interface InvocationCall {
  readonly kind: 'tool' | 'prompt' | 'resource'
  readonly name: string
  readonly arguments: Readonly<Record<string, unknown>>
  readonly principal: string | undefined
  readonly round: number
  readonly request: RequestCall
}
export interface ResolverCall {
  readonly key: string
  readonly invocation: InvocationCall
}
export interface QuestionCall {
  readonly key: string
  readonly method: 'elicitation/create' | 'sampling/createMessage' | 'roots/list'
  readonly era: 'modern' | 'legacy'
  readonly request: RequestCall
  readonly resolver?: ResolverCall
}
export interface ServerMiddleware {
  request?: (call: RequestCall, next: () => Promise<ResultObject>) => ResultObject | Promise<ResultObject>
  invocation?: (call: InvocationCall, next: () => Promise<unknown>) => unknown
  resolver?: (call: ResolverCall, next: () => Promise<unknown>) => unknown
  question?: (call: QuestionCall, next: () => Promise<unknown>) => unknown
}

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
