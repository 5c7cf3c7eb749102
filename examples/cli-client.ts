/**
 * A command-line MCP client for the demo Worker. Runs under Node (via tsx), Deno and Bun:
 *
 *   npx tsx examples/cli-client.ts                        # provision + order_book, asks in the terminal
 *   npx tsx examples/cli-client.ts --answer region=eu-west-1 --answer confirm=true
 *   npx --yes deno@2.9.6 run -A examples/cli-client.ts --url http://127.0.0.1:8799/mcp --answer confirm=true
 *   npx --yes bun@1.4.5 examples/cli-client.ts --url http://127.0.0.1:8799/mcp --answer confirm=true
 *   MCP_URL=http://127.0.0.1:8799/mcp npx tsx examples/cli-client.ts order_book '{"title":"Dune"}'
 *
 * Options: --url URL (else the MCP_URL environment variable, else http://127.0.0.1:8787/mcp),
 * --answer field=value (repeatable; answers the
 * elicitation field of that name without asking; `sample=TEXT` answers sampling requests), --decline
 * (decline every question), then an optional
 * tool name and JSON arguments. Without a tool it runs the demo: provision {"name":"orders"}, then
 * order_book {"title":"Neuromancer"}. Exits 1 when a call fails or returns isError.
 */
import { createInterface } from 'node:readline/promises'
import { Client, StreamableHttpClientTransport } from '../src/client/index.ts'
import {
  type CreateMessageRequestParams,
  type CreateMessageResult,
  type ElicitRequestParams,
  type ElicitResult,
  type PrimitiveSchemaDefinition,
} from '../src/index.ts'

declare const Deno: { args: string[]; env: { get(name: string): string | undefined } } | undefined
declare const process: {
  argv: string[]
  env: Record<string, string | undefined>
  stdin: unknown
  stdout: unknown
  exitCode?: number | undefined
}

const argv: string[] = typeof Deno !== 'undefined' ? Deno.args : process.argv.slice(2)
const DEFAULT_URL = 'http://127.0.0.1:8787/mcp'
/** The endpoint when `--url` is not given: the MCP_URL environment variable, else the demo Worker's. */
const envUrl = readEnv('MCP_URL')?.trim() || DEFAULT_URL

/** An environment variable; undefined when unset, or when Deno runs without --allow-env. */
function readEnv(name: string): string | undefined {
  try {
    return typeof Deno !== 'undefined' ? Deno.env.get(name) : process.env[name]
  } catch {
    return undefined
  }
}

const USAGE = `usage: cli-client [--url URL] [--answer field=value]... [--decline] [tool [json-arguments]]
  --url URL             the MCP endpoint (default: $MCP_URL, else http://127.0.0.1:8787/mcp)
  --answer field=value  answer that elicitation field without asking (repeatable);
                        --answer sample=TEXT answers a sampling request
  --decline             decline every elicitation (sampling cannot be declined)
  Without a tool: provision {"name":"orders"}, then order_book {"title":"Neuromancer"}.`

interface Options {
  url: string
  declineAll: boolean
  answers: Map<string, string>
  positional: string[]
  help: boolean
}

/** Parse the command line; returns an error message instead of throwing. */
function parseArgs(args: string[]): Options | string {
  const o: Options = {
    url: envUrl,
    declineAll: false,
    answers: new Map(),
    positional: [],
    help: false,
  }
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]
    if (arg === '--help' || arg === '-h') o.help = true
    else if (arg === '--url') {
      const value = args[++i]
      if (!value) return '--url needs a URL'
      o.url = value
    } else if (arg === '--decline') o.declineAll = true
    else if (arg === '--answer') {
      const pair = args[++i] ?? ''
      const eq = pair.indexOf('=')
      if (eq <= 0) return `--answer takes field=value, got '${pair}'`
      o.answers.set(pair.slice(0, eq), pair.slice(eq + 1))
    } else if (arg.startsWith('--')) return `unknown option ${arg}`
    else o.positional.push(arg)
  }
  if (o.positional.length > 2) return `unexpected argument '${o.positional[2]}' (quote the JSON arguments as one)`
  const source = o.url === envUrl && readEnv('MCP_URL')?.trim() ? 'MCP_URL' : '--url'
  if (!/^https?:$/.test(URL.parse(o.url)?.protocol ?? '')) return `${source} must be an http(s) URL, got '${o.url}'`
  if (o.positional[1] !== undefined) {
    try {
      const parsed: unknown = JSON.parse(o.positional[1])
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
        return 'the arguments must be a JSON object'
    } catch {
      return `the arguments are not valid JSON: ${o.positional[1]}`
    }
  }
  return o
}

const parsedArgs = parseArgs(argv)
const options: Options =
  typeof parsedArgs === 'string'
    ? { url: '', declineAll: false, answers: new Map(), positional: [], help: false }
    : parsedArgs
const { url, declineAll, answers, positional } = options

let rl: ReturnType<typeof createInterface> | undefined
let lines: AsyncIterator<string> | undefined
/** Print a prompt and read one line (buffered, so piped input works too). */
async function ask(question: string): Promise<string> {
  rl ??= createInterface({ input: process.stdin as never, terminal: false })
  lines ??= rl[Symbol.asyncIterator]()
  ;(process.stdout as { write(s: string): void }).write(question)
  const next = await lines.next()
  if (next.done) throw new Error('no more input on stdin (pass --answer field=value to script the answers)')
  if (!(process.stdin as { isTTY?: boolean }).isTTY) console.log(next.value)
  return next.value
}

/** Convert typed text to the field's JSON type; undefined when it does not fit. */
function convert(text: string, schema: PrimitiveSchemaDefinition): string | number | boolean | string[] | undefined {
  switch (schema.type) {
    case 'boolean':
      if (/^(y|yes|true|1)$/i.test(text)) return true
      if (/^(n|no|false|0)$/i.test(text)) return false
      return undefined
    case 'integer':
    case 'number': {
      const n = Number(text)
      if (text.trim() === '' || !Number.isFinite(n) || (schema.type === 'integer' && !Number.isInteger(n)))
        return undefined
      return n
    }
    case 'array':
      return text
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    default: {
      const options = choicesOf(schema)
      if (options && !options.includes(text)) return undefined
      return text
    }
  }
}

/** The allowed values of a single-select enum field, if it is one. */
function choicesOf(schema: PrimitiveSchemaDefinition): string[] | undefined {
  const s = schema as { enum?: string[]; oneOf?: Array<{ const: string }> }
  return s.enum ?? s.oneOf?.map((o) => o.const)
}

/** Whether the user declined a question during the call in progress (its error result is then their answer). */
let declined = false

async function elicitation(params: ElicitRequestParams): Promise<ElicitResult> {
  console.log(`  ? ${params.message}`)
  if (declineAll) {
    console.log('    (declined: --decline)')
    declined = true
    return { action: 'decline' }
  }
  if (params.mode === 'url') {
    console.log(`    open this URL to continue: ${params.url}`)
    const reply = answers.get('url') ?? (await ask('    opened it? [y/N] '))
    declined ||= !/^y/i.test(reply)
    return /^y/i.test(reply) ? { action: 'accept' } : { action: 'decline' }
  }
  const content: Record<string, string | number | boolean | string[]> = {}
  const required = new Set(params.requestedSchema.required ?? [])
  for (const [field, schema] of Object.entries(params.requestedSchema.properties)) {
    const choices = choicesOf(schema)
    const hint = schema.type === 'boolean' ? ' [y/n]' : choices ? ` [${choices.join('/')}]` : ''
    const caption = schema.title ?? schema.description
    const label = `${field}${caption ? ` (${caption})` : ''}${hint}`
    for (;;) {
      const given = answers.get(field)
      const text = given ?? (await ask(`    ${label}: `))
      if (given !== undefined) console.log(`    ${label}: ${given}   [--answer]`)
      if (text === '' && !required.has(field)) break
      const value = convert(text, schema)
      if (value !== undefined) {
        content[field] = value
        break
      }
      if (given !== undefined)
        throw new Error(
          `--answer ${field}=${given} is not a valid ${choices ? `choice (${choices.join(', ')})` : schema.type}`,
        )
      console.log(
        choices ? `    please enter one of: ${choices.join(', ')}` : `    please enter a valid ${schema.type}`,
      )
    }
  }
  return { action: 'accept', content }
}

/** Sampling with a human in the loop: show the prompt, the person at the terminal writes the reply. */
async function sampling(params: CreateMessageRequestParams): Promise<CreateMessageResult> {
  if (declineAll)
    throw new Error('--decline: a sampling request cannot be declined (answer it with --answer sample=TEXT)')
  for (const m of params.messages) {
    const parts = Array.isArray(m.content) ? m.content : [m.content]
    console.log(
      `  ✎ the server asks the model (${m.role}): ${parts.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join(' ')}`,
    )
  }
  const given = answers.get('sample')
  if (given?.trim() === '') throw new Error('--answer sample= is empty: give the reply text, as the model')
  let reply = given ?? ''
  if (given !== undefined) console.log(`    your reply, as the model: ${given}   [--answer]`)
  while (reply.trim() === '') reply = await ask('    your reply, as the model: ')
  return { role: 'assistant', content: { type: 'text', text: reply }, model: 'human-in-the-loop' }
}

const client = new Client({
  transport: new StreamableHttpClientTransport(url),
  clientInfo: { name: 'edge-mcp-cli', version: '0.1.0' },
  elicitation,
  sampling,
})

async function call(tool: string, args: Record<string, unknown>): Promise<boolean> {
  console.log(`→ ${tool} ${JSON.stringify(args)}`)
  declined = false
  try {
    const result = await client.callTool(tool, args, {
      onRound: (r) => {
        const keys = Object.keys(r.inputRequests)
        console.log(
          `  ↺ round ${r.round}: answered ${keys.length ? keys.join(', ') : '(nothing: state only)'}${r.hasRequestState ? '; the opaque requestState goes back unchanged' : ''}`,
        )
      },
    })
    const text = result.content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n')
    console.log(`${result.isError && !declined ? '✗' : '←'} ${text}`) // a decline is an answer, not a failure
    return !result.isError
  } catch (error) {
    console.log(`✗ ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`)
    return false
  }
}

/** The first system error code (ECONNREFUSED, ENOTFOUND, …) along the cause chain, or in an AggregateError's first error. */
function systemCode(error: unknown, depth = 0): string | undefined {
  if (!(error instanceof Error) || depth > 5) return undefined
  const code = (error as { code?: unknown }).code
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return code
  const inner = (error as { errors?: unknown }).errors
  return systemCode(error.cause, depth + 1) ?? (Array.isArray(inner) ? systemCode(inner[0], depth + 1) : undefined)
}

/**
 * One line for a failure to talk to the server: the error's message, the system error code (ECONNREFUSED,
 * ENOTFOUND, …) when the runtime gives one and the message lacks it, and for an unreachable server a hint.
 */
function describeFailure(error: unknown): string {
  if (!(error instanceof Error)) return String(error)
  const code = systemCode(error)
  const unreachable = error.name === 'NetworkError' || (error instanceof TypeError && /fetch/i.test(error.message))
  const message =
    error.name === 'NetworkError' || error.name === 'Error' ? error.message : `${error.name}: ${error.message}`
  const withCode = code && !message.includes(code) ? `${message} (${code})` : message
  if (unreachable)
    return `${withCode} — is the server running at ${url}? Start the demo with \`npm start\`, or pass --url or set MCP_URL.`
  const status = (error as { status?: unknown }).status
  if (error.name === 'HttpError' && (status === 404 || status === 405))
    return `${withCode} — no MCP endpoint at ${url}; is the path right? The demo serves it at /mcp.`
  return withCode
}

async function main(): Promise<number> {
  if (typeof parsedArgs === 'string') {
    console.error(`${parsedArgs}\n\n${USAGE}`)
    return 2
  }
  if (options.help) {
    console.log(USAGE)
    return 0
  }
  let ok = true
  try {
    const discovered = await client.discover()
    const info = discovered._meta?.['io.modelcontextprotocol/serverInfo'] as
      { name?: string; version?: string } | undefined
    console.log(
      `Connected to ${info?.name ?? 'server'} ${info?.version ?? ''} at ${url} (MCP ${client.protocolVersion}${client.era === 'legacy' ? ', a 2025-era session' : ''})`,
    )
    if (positional.length > 0) {
      const [tool, json] = positional as [string, string | undefined]
      ok = await call(tool, json ? (JSON.parse(json) as Record<string, unknown>) : {})
    } else {
      ok = (await call('provision', { name: 'orders' })) && ok
      ok = (await call('order_book', { title: 'Neuromancer' })) && ok
    }
  } catch (error) {
    console.error(`✗ ${describeFailure(error)}`)
    ok = false
  } finally {
    rl?.close()
    // a 2025-era server's session holds a GET stream open: close() ends it (DELETE), so the process can exit
    await client.close().catch(() => {})
  }
  return ok ? 0 : 1
}

process.exitCode = await main()
