/**
 * JSON-RPC 2.0 framing (requests, notifications, responses, error objects), and the helpers that wrap an
 * MCP method's params into its full request or notification. Framing objects are strict (`v.object`).
 *
 * Schemas a server or client may never read (envelopes, results it only produces) mark every call of
 * their definition with a `@__PURE__` comment, so that a bundler drops those nothing imports: esbuild
 * (so wrangler) does not carry valibot's own no-side-effects marks across modules.
 * @module
 */
import * as v from 'valibot'
import { JsonObject, RequestId } from './common.ts'

export const JSONRPCRequest = /* @__PURE__ */ v.object({
  jsonrpc: /* @__PURE__ */ v.literal('2.0'),
  id: RequestId,
  method: /* @__PURE__ */ v.string(),
  params: /* @__PURE__ */ v.optional(JsonObject),
})
export type JSONRPCRequest = v.InferOutput<typeof JSONRPCRequest>

export const JSONRPCNotification = /* @__PURE__ */ v.object({
  jsonrpc: /* @__PURE__ */ v.literal('2.0'),
  method: /* @__PURE__ */ v.string(),
  params: /* @__PURE__ */ v.optional(JsonObject),
})
export type JSONRPCNotification = v.InferOutput<typeof JSONRPCNotification>

export const ErrorObject = v.looseObject({
  code: v.pipe(v.number(), v.integer()),
  message: v.string(),
  data: v.optional(v.unknown()),
})
export type ErrorObject = v.InferOutput<typeof ErrorObject>

export const JSONRPCResultResponse = /* @__PURE__ */ v.object({
  jsonrpc: /* @__PURE__ */ v.literal('2.0'),
  id: RequestId,
  result: JsonObject,
})
export type JSONRPCResultResponse = v.InferOutput<typeof JSONRPCResultResponse>

export const JSONRPCErrorResponse = /* @__PURE__ */ v.object({
  jsonrpc: /* @__PURE__ */ v.literal('2.0'),
  id: /* @__PURE__ */ v.optional(/* @__PURE__ */ v.nullable(RequestId)),
  error: ErrorObject,
})
export type JSONRPCErrorResponse = v.InferOutput<typeof JSONRPCErrorResponse>

export const JSONRPCResponse = /* @__PURE__ */ v.union([JSONRPCResultResponse, JSONRPCErrorResponse])
export type JSONRPCResponse = v.InferOutput<typeof JSONRPCResponse>

/** The JSON-RPC request of method `method`: `{ jsonrpc: '2.0', id, method, params }`. */
/* @__NO_SIDE_EFFECTS__ */
export function request<M extends string, P extends v.GenericSchema>(method: M, params: P) {
  return v.object({ jsonrpc: v.literal('2.0'), id: RequestId, method: v.literal(method), params })
}

/** The JSON-RPC notification of method `method`: `{ jsonrpc: '2.0', method, params }`. */
/* @__NO_SIDE_EFFECTS__ */
export function notification<M extends string, P extends v.GenericSchema>(method: M, params: P) {
  return v.object({ jsonrpc: v.literal('2.0'), method: v.literal(method), params })
}
