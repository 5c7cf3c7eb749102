/**
 * Benchmark: the minified + gzipped size of a browser app's MCP client code per SDK. Each
 * entry in `bench/browser/` (a `Client`, its Streamable HTTP transport and an elicitation handler,
 * calling one tool on a click) is bundled by vite 8.3.8's `build()` the same way, as an app is: app mode
 * (the entry as `rolldownOptions.input`; not library mode, whose ES output vite leaves with its
 * whitespace), ES modules, every dependency bundled, `minify: true`, `target: 'es2022'`, browser
 * resolution (the `browser` export condition: the official client resolves its `_shims` to
 * `shimsBrowser.mjs`), nothing written to disk; then each chunk gzipped (zlib level 6). The headline is the sum over every chunk, those an
 * `import()` loads later included; the chunks loaded at start (entry and its static imports) are shown
 * too. A bundle that still imports a `node:` builtin (or any module outside its own chunks) fails the
 * benchmark. Target: edge-mcp ≤ 1/4 of the official SDK, gzipped.
 */
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import { build, type Rollup } from 'vite'
import { fmt, met, x } from './measure.ts'

const root = fileURLToPath(new URL('..', import.meta.url))

interface Size {
  bytes: number
  gzipped: number
}

/**
 * All chunks together (each gzipped on its own, as a browser fetches them), and those loaded at start
 * (the entry chunk and its static imports): the code only an `import()` reaches (edge-mcp's 2025-era
 * session) is fetched when needed.
 */
interface Bundle extends Size {
  chunks: number
  initial: Size & { chunks: number }
}

/**
 * Bundle one entry of `bench/browser/` in memory; throws when the output is not one entry chunk plus the
 * chunks it loads, self-contained.
 */
async function bundle(entry: string): Promise<Bundle> {
  const output = await build({
    configFile: false,
    root,
    logLevel: 'silent',
    mode: 'production',
    publicDir: false,
    build: {
      write: false,
      rolldownOptions: { input: fileURLToPath(new URL(`./browser/${entry}`, import.meta.url)) },
      minify: true,
      target: 'es2022',
      sourcemap: false,
      reportCompressedSize: false,
      copyPublicDir: false,
    },
  })
  const results = (Array.isArray(output) ? output : [output]) as Rollup.RollupOutput[]
  const chunks = results.flatMap((r) => r.output).filter((o): o is Rollup.OutputChunk => o.type === 'chunk')
  const names = new Set(chunks.map((c) => c.fileName))
  const entries = chunks.filter((c) => c.isEntry)
  if (entries.length !== 1)
    throw new Error(`vite bundled bench/browser/${entry} into ${entries.length} entry chunks, expected 1`)
  const sizes = new Map<string, Size>()
  for (const chunk of chunks) {
    const outside = [...chunk.imports, ...chunk.dynamicImports].filter((name) => !names.has(name))
    if (outside.length > 0) throw new Error(`the bundle of bench/browser/${entry} still imports ${outside.join(', ')}`)
    if (/\bfrom\s*["']node:|import\(["']node:|require\(["']node:/.test(chunk.code))
      throw new Error(`bench/browser/${entry} bundled a node: import`)
    const code = Buffer.from(chunk.code, 'utf8')
    sizes.set(chunk.fileName, { bytes: code.length, gzipped: gzipSync(code, { level: 6 }).length })
  }
  // what loads at start: the entry chunk and every chunk it imports statically, transitively
  const initial = new Set<string>()
  const visit = (name: string): void => {
    if (initial.has(name)) return
    initial.add(name)
    for (const next of chunks.find((c) => c.fileName === name)!.imports) visit(next)
  }
  visit(entries[0].fileName)
  const sum = (names: Iterable<string>): Size => {
    let total = { bytes: 0, gzipped: 0 }
    for (const name of names) {
      const size = sizes.get(name)!
      total = { bytes: total.bytes + size.bytes, gzipped: total.gzipped + size.gzipped }
    }
    return total
  }
  return { ...sum(sizes.keys()), chunks: chunks.length, initial: { ...sum(initial), chunks: initial.size } }
}

const kib = (n: number) => `${fmt(n)} (${(n / 1024).toFixed(1)} KiB)`

/** Sizes of both browser bundles and the table lines. */
export async function benchBrowserBundle(): Promise<{
  ours: Bundle
  apps: Bundle
  theirs: Bundle
  lines: string[]
}> {
  const ours = await bundle('edge-mcp.ts')
  const apps = await bundle('edge-mcp-apps.ts')
  const theirs = await bundle('official.ts')
  const growth = apps.gzipped - ours.gzipped
  const ratio = ours.gzipped / theirs.gzipped
  const lines = [
    '### Browser client bundle',
    '',
    '| browser app: `Client` + Streamable HTTP transport + elicitation handler, vite 8 `build()`, minified | bytes | gzipped bytes |',
    '| --- | ---: | ---: |',
    `| edge-mcp (\`edge-mcp/client\` + \`edge-mcp/browser\`: HTML forms) | ${kib(ours.bytes)} | ${kib(ours.gzipped)} |`,
    ...(ours.chunks > 1
      ? [
          `| … of which the chunks loaded at start (${ours.initial.chunks} of ${ours.chunks} chunks; the rest by \`import()\` when needed) | ${kib(ours.initial.bytes)} | ${kib(ours.initial.gzipped)} |`,
        ]
      : []),
    `| edge-mcp with the MCP Apps host (\`renderApp\`, the extension declared; bench/browser/edge-mcp-apps.ts) | ${kib(apps.bytes)} | ${kib(apps.gzipped)} |`,
    `| … growth over edge-mcp without it (target ≤ 4,000 B gzip) | ${fmt(apps.bytes - ours.bytes)} | **${fmt(growth)}** ${met(growth <= 4_000)} |`,
    `| official SDK 2.4.0 (\`@modelcontextprotocol/client\`, browser build; a \`confirm()\` handler) | ${kib(theirs.bytes)} | ${kib(theirs.gzipped)} |`,
    `| **ratio** edge-mcp ÷ official (target ≤ 0.25) | ${x(ours.bytes / theirs.bytes)} | **${x(ratio)}** ${met(ratio <= 1 / 4)} |`,
  ]
  return { ours, apps, theirs, lines }
}
