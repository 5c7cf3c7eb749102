/**
 * Benchmark: the deployable size of an equivalent one-tool Worker (`echo {text: string}`) per SDK, as
 * `wrangler deploy --dry-run --minify` bundles it (the project's wrangler 4.86.0; no account needed): bytes of the bundled
 * script, and the same gzipped (zlib, default level 6). Each entry is in `bench/workers/`; each gets a
 * generated `wrangler.toml` with `no_nodejs_compat` (edge-mcp and the official SDK bundle and import nothing
 * from `node:`). Beside them, the edge-first peers tmcp 1.20.0 (which needs `node:async_hooks`, so the
 * `nodejs_als` flag) and mcp-lite 0.10.0, info rows with ratios.
 * Target: edge-mcp ≤ 1/3 of the official SDK, gzipped.
 */
import { execFile } from 'node:child_process'
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { gzipSync } from 'node:zlib'
import { fmt, met, x } from './measure.ts'

const run = promisify(execFile)
const root = fileURLToPath(new URL('..', import.meta.url))

export interface Bundle {
  /** The bundled script (UTF-8), for `bench/cold-import.ts` to import. */
  code: string
  bytes: number
  gzipped: number
  /** Whether the bundled script contains jose (its JWKS code, by a string only jose has). */
  jose: boolean
  /** Whether it contains `edge-mcp/cloudflare`'s Durable Object code (by a string only that code has). */
  cloudflare: boolean
  /** Whether it contains `@opentelemetry/api` (by the key of its global registry). */
  opentelemetry: boolean
  /** The `node:` modules the bundled script imports (only those the entry was allowed; usually none). */
  nodeImports: string[]
}

/** How one entry is bundled: its compatibility flags, and the `node:` imports it may keep (default none). */
export interface BundleOptions {
  compatibilityFlags?: readonly string[]
  allowedNodeImports?: readonly string[]
}

/** Strings only jose's code has (its JWKS fetch and JWT claim errors), to tell whether it was bundled. */
const JOSE_MARKERS = ['JSON Web Key Set', 'claim timestamp check failed']
/** A string only `src/cloudflare/` has (its unbound-namespace error). */
const CLOUDFLARE_MARKER = 'is not bound to a Durable Object namespace'
/** The key `@opentelemetry/api` registers its globals under. */
const OPENTELEMETRY_MARKER = 'opentelemetry.js.api.'

/**
 * Bundle one entry with wrangler into a temporary folder (`no_nodejs_compat` unless told otherwise).
 * @throws Error with wrangler's output on failure, or when the script imports a `node:` module it was not allowed.
 */
export async function bundle(
  entry: string,
  { compatibilityFlags = ['no_nodejs_compat'], allowedNodeImports = [] }: BundleOptions = {},
): Promise<Bundle> {
  const dir = await mkdtemp(join(tmpdir(), 'edge-mcp-bundle-'))
  try {
    const config = join(dir, 'wrangler.toml')
    const main = join(root, 'bench', 'workers', entry)
    await writeFile(
      config,
      `name = "bench"\nmain = ${JSON.stringify(main)}\ncompatibility_date = "2026-04-01"\ncompatibility_flags = ${JSON.stringify(compatibilityFlags)}\n`,
    )
    const out = join(dir, 'out')
    try {
      await run(
        join(root, 'node_modules', '.bin', 'wrangler'),
        ['deploy', '--dry-run', '--minify', '--outdir', out, '--config', config],
        {
          cwd: root,
          env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CI: '1' },
          timeout: 120_000,
        },
      )
    } catch (error) {
      const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string }
      throw new Error(`wrangler could not bundle bench/workers/${entry}:\n${stdout}${stderr}`)
    }
    const scripts = (await readdir(out)).filter((f) => f.endsWith('.js'))
    if (scripts.length !== 1)
      throw new Error(
        `wrangler bundled bench/workers/${entry} into ${scripts.length} scripts (${scripts.join(', ')}), expected 1`,
      )
    const code = await readFile(join(out, scripts[0]))
    const text = code.toString('utf8')
    const nodeImports = [
      ...new Set(
        [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\(\s*)["'](node:[\w/]+)/g)].map((m) => m[1]),
      ),
    ]
    const refused = nodeImports.filter((m) => !allowedNodeImports.includes(m))
    if (refused.length > 0) throw new Error(`bench/workers/${entry} bundled a node: import (${refused.join(', ')})`)
    return {
      code: text,
      bytes: code.length,
      gzipped: gzipSync(code).length,
      jose: JOSE_MARKERS.some((m) => text.includes(m)),
      cloudflare: text.includes(CLOUDFLARE_MARKER),
      opentelemetry: text.includes(OPENTELEMETRY_MARKER),
      nodeImports,
    }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/**
 * The peers' one-tool Workers. tmcp 1.20.0 and its HTTP transport import `AsyncLocalStorage` from
 * `node:async_hooks`: it is bundled with the `nodejs_als` flag (that module only, no other Node.js API), and
 * the table says so. A peer that does not bundle is printed with the reason, not a failed benchmark.
 */
const PEERS: Array<[string, BundleOptions]> = [
  ['tmcp.ts', { compatibilityFlags: ['nodejs_als'], allowedNodeImports: ['node:async_hooks'] }],
  ['mcp-lite.ts', {}],
]

const kib = (n: number) => `${fmt(n)} (${(n / 1024).toFixed(1)} KiB)`

/**
 * Sizes of the Workers and the table lines: edge-mcp (its tool's input in valibot, zod 4, arktype), edge-mcp/hono, edge-mcp with OAuth (a
 * `jwtVerifier`, so jose), edge-mcp with `edge-mcp/cloudflare`'s Durable Objects (mailbox and bus; tasks)
 * and the official SDK; a
 * sixth, `protectedResource` with a verifier of its own, is bundled only to check it carries no jose; and the
 * peers' Workers (`tmcp`, `mcpLite`: the bundle, or the reason it could not be bundled).
 * @throws Error when jose is in a Worker without the JWT verifier (the one importing `edge-mcp/oauth` for
 *   `protectedResource` included), or missing from the one with it; the same for `edge-mcp/cloudflare`'s code.
 */
export async function benchBundle(): Promise<{
  ours: Bundle
  oauth: Bundle
  theirs: Bundle
  tmcp: Bundle | string
  mcpLite: Bundle | string
  lines: string[]
}> {
  const [tmcp, mcpLite] = PEERS.map(([entry, options]) =>
    bundle(entry, options).catch((error: unknown) => (error instanceof Error ? error.message : String(error))),
  )
  const [
    ours,
    hono,
    oauth,
    cloudflare,
    theirs,
    ownVerifier,
    zod,
    arktype,
    reject,
    middleware,
    tracing,
    tasks,
    cfTasks,
  ] = (await Promise.all(
    [
      'edge-mcp.ts',
      'edge-mcp-hono.ts',
      'edge-mcp-oauth.ts',
      'edge-mcp-cloudflare.ts',
      'official.ts',
      'edge-mcp-own-verifier.ts',
      'edge-mcp-zod.ts',
      'edge-mcp-arktype.ts',
      'edge-mcp-legacy-reject.ts',
      'edge-mcp-middleware.ts',
      'edge-mcp-tracing.ts',
      'edge-mcp-tasks.ts',
      'edge-mcp-cloudflare-tasks.ts',
    ].map((entry) => bundle(entry)),
  )) as [Bundle, Bundle, Bundle, Bundle, Bundle, Bundle, Bundle, Bundle, Bundle, Bundle, Bundle, Bundle, Bundle]
  if (ours.jose || hono.jose || cloudflare.jose)
    throw new Error('jose was bundled into a Worker that verifies no token')
  if (ownVerifier.jose) throw new Error('jose was bundled into a Worker that verifies tokens without jwtVerifier')
  if (!oauth.jose) throw new Error('jose is missing from the Worker with a jwtVerifier (the check is stale)')
  if (ours.cloudflare || hono.cloudflare || oauth.cloudflare || tasks.cloudflare)
    throw new Error('edge-mcp/cloudflare was bundled into a Worker that does not import it')
  if (!cloudflare.cloudflare || !cfTasks.cloudflare)
    throw new Error('edge-mcp/cloudflare is missing from a Worker using it (stale check)')
  if (ours.opentelemetry || middleware.opentelemetry)
    throw new Error('@opentelemetry/api was bundled into a Worker that does not trace')
  if (!tracing.opentelemetry) throw new Error('@opentelemetry/api is missing from the traced Worker (stale check)')
  const ratio = ours.gzipped / theirs.gzipped
  /** An info row's gzipped size and what it adds to (or takes from) the default Worker's. */
  const beside = (b: Bundle) =>
    `${kib(b.gzipped)} (${b.gzipped >= ours.gzipped ? '+' : '−'}${fmt(Math.abs(b.gzipped - ours.gzipped))})`
  const peers = [
    ['tmcp 1.20.0 (`HttpTransport`, valibot adapter)', await tmcp],
    ['mcp-lite 0.10.0 (`StreamableHttpTransport`, stateless, valibot input; no 2026 wire)', await mcpLite],
  ] as const
  const peerRows = peers.map(([label, b]) => {
    if (typeof b === 'string') return `| ${label}: **could not bundle** — ${b.split('\n')[0]} | — | — |`
    const node = b.nodeImports.length > 0 ? `; imports \`${b.nodeImports.join('`, `')}\` (\`nodejs_als\` flag)` : ''
    return `| ${label}${node} | ${kib(b.bytes)} | ${kib(b.gzipped)} |`
  })
  const peerRatios = peers.flatMap(([label, b]) =>
    typeof b === 'string' ? [] : [`edge-mcp ÷ ${label.split(' (')[0]} ${x(ours.gzipped / b.gzipped)}`],
  )
  const lines = [
    '### One-tool Worker bundle',
    '',
    '| one-tool Worker, `wrangler deploy --dry-run --minify` | bytes | gzipped bytes (info rows: ± the first) |',
    '| --- | ---: | ---: |',
    `| edge-mcp (\`createFetchHandler\`, the tool's input in valibot) | ${kib(ours.bytes)} | ${kib(ours.gzipped)} |`,
    `| edge-mcp, the input in zod 4 (info) | ${kib(zod.bytes)} | ${beside(zod)} |`,
    `| edge-mcp, the input in arktype (info) | ${kib(arktype.bytes)} | ${beside(arktype)} |`,
    `| edge-mcp, 2026-07-28 only (\`legacy: 'reject'\`, info) | ${kib(reject.bytes)} | ${beside(reject)} |`,
    `| edge-mcp (\`edge-mcp/hono\`, info) | ${kib(hono.bytes)} | ${beside(hono)} |`,
    `| edge-mcp with OAuth (\`oauth\` + \`jwtVerifier\` of \`edge-mcp/oauth\`, jose), info | ${kib(oauth.bytes)} | ${beside(oauth)} |`,
    `| edge-mcp with \`edge-mcp/cloudflare\` (Durable Object mailbox and notification bus), info | ${kib(cloudflare.bytes)} | ${beside(cloudflare)} |`,
    `| edge-mcp with a request middleware and a structured logger (\`use\`, \`logger.record\`), info | ${kib(middleware.bytes)} | ${beside(middleware)} |`,
    `| edge-mcp traced (\`serverTracing()\` of \`edge-mcp/opentelemetry\`, \`@opentelemetry/api\`), info | ${kib(tracing.bytes)} | ${beside(tracing)} |`,
    `| edge-mcp with a task tool (\`tasks: inMemoryTasks()\`, \`task: 'required'\`, progress and a question in the task), info | ${kib(tasks.bytes)} | ${beside(tasks)} |`,
    `| edge-mcp with tasks on Workers (\`durableObjectTasks\` and the \`taskObject\` Durable Object of \`edge-mcp/cloudflare\`), info | ${kib(cfTasks.bytes)} | ${beside(cfTasks)} |`,
    `| official SDK 2.4.0 (\`createMcpHandler\`) | ${kib(theirs.bytes)} | ${kib(theirs.gzipped)} |`,
    ...peerRows,
    `| **ratio** edge-mcp ÷ official (target ≤ 0.33) | ${x(ours.bytes / theirs.bytes)} | **${x(ratio)}** ${met(ratio <= 1 / 3)} |`,
    `| ratio, gzipped (info) | | ${peerRatios.join('; ') || '—'} |`,
  ]
  return { ours, oauth, theirs, tmcp: await tmcp, mcpLite: await mcpLite, lines }
}
