/**
 * The hand-written floor of the one-tool Worker (`bench/cold-import.ts` times its import): the same
 * `tools/call echo {text: string}` answer as `edge-mcp.ts` and `official.ts`, checked the same way, with
 * no SDK (see `bench/floor.ts` for what it checks).
 */
import { floorEcho } from '../floor.ts'

export default { fetch: floorEcho }
