/**
 * The routing values of a tool call (`SendOptions.routing`): the arguments each tool's `x-mcp-header`
 * annotations declare (spec: streamable-http.mdx "Custom headers"), as `listTools` last saw them. The HTTP
 * transport sends them as `Mcp-Param-*` headers.
 * @module
 */
import { headerParamsOf, isParamValue, valueAt, type HeaderParam } from '../protocol/param-headers.ts'
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

  /**
   * The routing values of a call of tool `name` with `args`: each declared argument that is a string, a
   * boolean or a finite number, by its declared name (none for a tool not listed).
   */
  routingFor(name: string, args: Record<string, unknown>): Record<string, string | number | boolean> {
    const out: Record<string, string | number | boolean> = {}
    for (const param of this.#params.get(name) ?? []) {
      const value = valueAt(args, param.path)
      if (isParamValue(value)) out[param.name] = value
    }
    return out
  }
}
