/**
 * Mirroring tool arguments into `Mcp-Param-*` request headers (spec: streamable-http.mdx): the header
 * parameters each tool's `x-mcp-header` annotations declare, as `listTools` last saw them.
 * @module
 */
import { formatParamValue, headerParamsOf, valueAt, type HeaderParam } from '../protocol/param-headers.ts'
import type { Tool } from '../protocol/schemas/index.ts'

/** The header parameters of the tools of the last `tools/list`, by tool name. */
export class ToolHeaders {
  readonly #params = new Map<string, HeaderParam[]>()

  /**
   * Forget the previous list and remember the header parameters of `tools`. Tools whose `x-mcp-header`
   * annotations are invalid are left out, with a warning each.
   * @returns the tools kept, in order.
   */
  replace(tools: readonly Tool[], warn: (message: string) => void): Tool[] {
    const kept: Tool[] = []
    this.#params.clear()
    for (const tool of tools) {
      const found = headerParamsOf(tool.inputSchema)
      if ('invalid' in found) {
        warn(`Ignoring tool '${tool.name}': ${found.invalid}`)
        continue
      }
      if (found.params.length) this.#params.set(tool.name, found.params)
      kept.push(tool)
    }
    return kept
  }

  /** The `Mcp-Param-*` headers of a call of tool `name` with `args` (none for a tool not listed). */
  headersFor(name: string, args: Record<string, unknown>): Record<string, string> {
    const out: Record<string, string> = {}
    for (const param of this.#params.get(name) ?? []) {
      const value = formatParamValue(valueAt(args, param.path))
      if (value !== undefined) out[`Mcp-Param-${param.name}`] = value
    }
    return out
  }
}
