/**
 * The high-level server: register tools with valibot input schemas; requestState sealed by default.
 * @module
 */
import * as v from 'valibot'
import { toJsonSchema } from '@valibot/to-json-schema'
import { ErrorCode, McpError } from '../protocol/errors.ts'
import { describeIssue } from '../protocol/issues.ts'
import {
  CallToolResult,
  InputResponses,
  type Implementation,
  type InputRequiredResult,
  type Tool,
} from '../protocol/schemas.ts'
import { RequestStateSecurity } from '../state/security.ts'
import type { RequestContext } from './context.ts'
import { isInputRequired } from './results.ts'
import { Server, type ResultObject, type ServerOptions } from './server.ts'

/** A valibot object schema, or the entries of one (`{ title: v.string() }`). */
export type ToolInput = v.ObjectEntries | v.GenericSchema<Record<string, unknown>, Record<string, unknown>>

/** The validated arguments type of a {@link ToolInput}. */
export type ToolArgs<I extends ToolInput | undefined> = I extends v.GenericSchema
  ? v.InferOutput<I>
  : I extends v.ObjectEntries
    ? v.InferOutput<v.ObjectSchema<I, undefined>>
    : Record<string, never>

/** What a tool handler may return: a result, an `InputRequiredResult`, or a string (one text block). */
export type ToolReturn = CallToolResult | InputRequiredResult | string

/** The context of a tool call: the request context plus this round's answers and plaintext state. */
export interface ToolContext extends RequestContext {
  /** The tool's name. */
  toolName: string
  /** The client's answers to the previous round's `inputRequests`, by key (undefined on the first round). */
  inputResponses: InputResponses | undefined
  /** The plaintext state your previous round returned (verified and unsealed), undefined on the first round. */
  requestState: string | undefined
}

/** A tool handler. Throw `McpError` for a JSON-RPC error; any other throw becomes an `isError` result. */
export type ToolHandler<Args> = (args: Args, ctx: ToolContext) => ToolReturn | Promise<ToolReturn>

/** Registration options of a tool (spec: server/tools.mdx `Tool`). */
export interface ToolConfig<I extends ToolInput | undefined> {
  title?: string
  description?: string
  /** Input arguments as a valibot object schema or its entries; advertised as `inputSchema` (JSON Schema 2020-12). */
  input?: I
  annotations?: Tool['annotations']
  icons?: Tool['icons']
  _meta?: Record<string, unknown>
}

/** Options of {@link McpServer}. */
export interface McpServerOptions extends ServerOptions {
  /**
   * How `requestState` is sealed. Default `RequestStateSecurity.ephemeral()` (one random key per process;
   * the audience is the server's name). Pass shared keys when retries may reach another instance.
   */
  requestStateSecurity?: RequestStateSecurity
}

interface RegisteredTool {
  definition: Tool
  schema: v.GenericSchema<unknown, Record<string, unknown>>
  handler: ToolHandler<never>
}

/**
 * A high-level MCP server.
 *
 * @throws Error at construction when an explicit `requestStateSecurity` is given to a server with an empty name.
 * @example
 * const mcp = new McpServer({ name: 'provisioner', version: '1.0.0' })
 * mcp.tool('provision', { description: 'Provision a database.', input: { name: v.string() } }, ({ name }, ctx) => {
 *   const answer = acceptedContent(ctx.inputResponses?.region)
 *   if (!answer) return inputRequired({ region: elicitForm('Which region?', regionSchema) }, 'provision-v1')
 *   return `Provisioned '${name}' in ${answer.region}.`
 * })
 * export default { fetch: createFetchHandler(mcp) }
 */
export class McpServer {
  /** The low-level server underneath (register other methods here). */
  readonly server: Server
  readonly #tools = new Map<string, RegisteredTool>()

  constructor(info: Implementation, options: McpServerOptions = {}) {
    this.server = new Server(info, options)
    this.server.useRequestStateSecurity(options.requestStateSecurity ?? RequestStateSecurity.ephemeral())
    this.server.setRequestHandler('tools/list', (params) => this.#listTools(params))
    this.server.setRequestHandler('tools/call', (params, ctx) => this.#callTool(params, ctx))
  }

  /**
   * Register a tool. Tools are listed in registration order.
   * @throws Error when a tool with this name is already registered.
   */
  tool<I extends ToolInput | undefined = undefined>(name: string, config: ToolConfig<I>, handler: ToolHandler<ToolArgs<I>>): this {
    if (this.#tools.has(name)) throw new Error(`Tool '${name}' is already registered`)
    const input = config.input
    const schema = (input === undefined ? v.object({}) : isSchema(input) ? input : v.object(input)) as v.GenericSchema<unknown, Record<string, unknown>>
    const { $schema: _ignored, ...inputSchema } = toJsonSchema(schema, { target: 'draft-2020-12', typeMode: 'input', errorMode: 'ignore' }) as Record<string, unknown>
    const definition: Tool = { name, inputSchema: { type: 'object', ...inputSchema } }
    if (config.title !== undefined) definition.title = config.title
    if (config.description !== undefined) definition.description = config.description
    if (config.annotations !== undefined) definition.annotations = config.annotations
    if (config.icons !== undefined) definition.icons = config.icons
    if (config._meta !== undefined) definition._meta = config._meta
    this.#tools.set(name, { definition, schema, handler: handler as ToolHandler<never> })
    return this
  }

  #listTools(params: Record<string, unknown>): ResultObject {
    // One page holds every tool, so no cursor was ever issued: any cursor is invalid (spec: pagination.mdx).
    if (params.cursor !== undefined) throw new McpError(ErrorCode.InvalidParams, 'Invalid cursor')
    return { tools: [...this.#tools.values()].map((t) => t.definition), ...this.server.cache }
  }

  async #callTool(params: Record<string, unknown>, ctx: RequestContext): Promise<ResultObject> {
    const name = params.name
    if (typeof name !== 'string') throw new McpError(ErrorCode.InvalidParams, 'Invalid params: "name" must be a string')
    const tool = this.#tools.get(name)
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`)
    let inputResponses: InputResponses | undefined
    if (params.inputResponses !== undefined) {
      const raw = params.inputResponses
      if (!isPlainObject(raw) || !Object.values(raw).every(isPlainObject)) {
        throw new McpError(ErrorCode.InvalidParams, 'Invalid params: inputResponses must be an object of result objects')
      }
      const parsed = v.safeParse(InputResponses, raw)
      if (!parsed.success) throw new McpError(ErrorCode.InvalidParams, `Invalid params: inputResponses ${describeIssue(parsed.issues[0])}`)
      inputResponses = parsed.output
    }
    const requestState = typeof params.requestState === 'string' ? params.requestState : undefined
    const rawArgs = params.arguments ?? {}
    if (!isPlainObject(rawArgs)) throw new McpError(ErrorCode.InvalidParams, 'Invalid params: arguments must be an object')
    const args = v.safeParse(tool.schema, rawArgs)
    if (!args.success) {
      return toolResult(true, `Invalid arguments for tool ${name}: ${args.issues.map(describeIssue).join('; ')}`)
    }
    const toolCtx: ToolContext = { ...ctx, toolName: name, inputResponses, requestState }
    let out: ToolReturn
    try {
      out = await tool.handler(args.output as never, toolCtx)
    } catch (error) {
      if (error instanceof McpError) throw error
      const message = error instanceof Error ? error.message : String(error)
      return toolResult(true, `Error executing tool ${name}: ${message}`)
    }
    if (typeof out === 'string') return toolResult(false, out)
    if (isInputRequired(out)) return out
    const checked = v.safeParse(CallToolResult, out)
    if (!checked.success) throw new Error(`tool ${name} returned an invalid CallToolResult: ${describeIssue(checked.issues[0])}`)
    return out as ResultObject
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function isSchema(input: ToolInput): input is v.GenericSchema<Record<string, unknown>, Record<string, unknown>> {
  return typeof input === 'object' && input !== null && (input as { kind?: unknown }).kind === 'schema'
}

function toolResult(isError: boolean, text: string): ResultObject {
  const result: CallToolResult = { content: [{ type: 'text', text }] }
  if (isError) result.isError = true
  return result
}
