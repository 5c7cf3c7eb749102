/**
 * The layers of src/, lowest first, and what each may import. Entry points (`index.ts` of a folder named
 * in package.json `exports`) are the public surface and may re-export any layer; every other file may
 * import only its own layer and the layers listed for it. No file may take part in an import cycle.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

const SRC = join(import.meta.dirname, '../src')

/**
 * The layers, by folder, and the layers each may import (its own always). A file's layer is its folder
 * (`server/http/sse.ts` → `server/http`); a subfolder without an entry here belongs to its parent's layer
 * (`server/resolve/`, `server/tasks/`, `protocol/schemas/`). `server/tasks/` is reached from the rest of the
 * server only through types and the installer's symbol (checked below): a server without tasks bundles none of it. Server and client never import each other; each side's
 * transports sit above its core, and its core never imports them.
 */
const ALLOWED: Record<string, string[]> = {
  encoding: [],
  protocol: ['encoding'],
  'request-state': ['encoding', 'protocol'],
  server: ['encoding', 'protocol', 'request-state'],
  'server/http': ['encoding', 'protocol', 'server'],
  client: ['encoding', 'protocol'],
  'client/oauth': ['encoding', 'protocol', 'client'],
  'client/http': ['encoding', 'protocol', 'client', 'client/oauth'],
  hono: ['protocol', 'server', 'server/http'],
  browser: ['protocol', 'client'],
  cloudflare: ['protocol', 'server'],
  oauth: ['encoding', 'protocol', 'server', 'server/http'],
  opentelemetry: ['protocol', 'server', 'client'],
  redis: ['protocol', 'server'],
}

/** The layer of a src/ file: its folder, or the nearest folder above it that is a layer; `entry` at the top. */
function layerOf(file: string): string {
  let folder = dirname(relative(SRC, file).replaceAll('\\', '/'))
  while (folder !== '.' && !(folder in ALLOWED)) folder = dirname(folder)
  return folder === '.' ? 'entry' : folder
}

const ENTRY_POINTS = new Set([
  'index.ts',
  'server/index.ts',
  'client/index.ts',
  'hono/index.ts',
  'browser/index.ts',
  'cloudflare/index.ts',
  'oauth/index.ts',
  'opentelemetry/index.ts',
  'redis/index.ts',
])

const files = readdirSync(SRC, { recursive: true, withFileTypes: true })
  .filter((d) => d.isFile() && d.name.endsWith('.ts'))
  .map((d) => join(d.parentPath, d.name))

/** The src/ files a file imports or re-exports (relative specifiers only), resolved to absolute paths. */
function importsOf(file: string): string[] {
  const source = readFileSync(file, 'utf8')
  const out: string[] = []
  for (const m of source.matchAll(/\b(?:import|export)\s[^'";]*?\bfrom\s*['"](\.[^'"]+)['"]/g)) {
    out.push(resolve(dirname(file), m[1]))
  }
  return out
}

const graph = new Map(files.map((f) => [f, importsOf(f)]))

/** Imports that go from a layer to one it may not use, as `from (layer) → to (layer)`. */
function upwardImports(g: Map<string, string[]>): string[] {
  const wrong: string[] = []
  for (const [file, deps] of g) {
    if (ENTRY_POINTS.has(relative(SRC, file))) continue
    const layer = layerOf(file)
    for (const dep of deps) {
      const target = layerOf(dep)
      if (target !== layer && !(ALLOWED[layer] ?? []).includes(target)) {
        wrong.push(`${relative(SRC, file)} (${layer}) → ${relative(SRC, dep)} (${target})`)
      }
    }
  }
  return wrong
}

/** Every import cycle found by a depth-first walk, as `a → b → a`. */
function findCycles(g: Map<string, string[]>): string[] {
  const cycles: string[] = []
  const state = new Map<string, 'open' | 'done'>()
  const stack: string[] = []
  const visit = (file: string): void => {
    state.set(file, 'open')
    stack.push(file)
    for (const dep of g.get(file) ?? []) {
      if (state.get(dep) === 'open') {
        const loop = stack.slice(stack.indexOf(dep)).concat(dep)
        cycles.push(loop.map((f) => relative(SRC, f)).join(' → '))
      } else if (!state.has(dep)) visit(dep)
    }
    stack.pop()
    state.set(file, 'done')
  }
  for (const file of g.keys()) if (!state.has(file)) visit(file)
  return cycles
}

describe('src/ layers', () => {
  it('finds the source files and every layer is known', () => {
    expect(files.length).toBeGreaterThan(20)
    for (const file of files) {
      const layer = layerOf(file)
      const entry = ENTRY_POINTS.has(relative(SRC, file))
      expect(entry || layer in ALLOWED, `${relative(SRC, file)}: layer ${layer}`).toBe(true)
    }
  })

  it('every relative import resolves to a file in src/', () => {
    for (const [file, deps] of graph) {
      for (const dep of deps) expect(graph.has(dep), `${relative(SRC, file)} imports ${dep}`).toBe(true)
    }
  })

  it('no file imports a layer above its own (entry points excepted)', () => {
    expect(upwardImports(graph)).toEqual([])
  })

  it('nothing outside src/oauth/ imports it (only a Worker that verifies tokens carries jose)', () => {
    const into = [...graph].flatMap(([file, deps]) =>
      layerOf(file) === 'oauth'
        ? []
        : deps.filter((d) => layerOf(d) === 'oauth').map((d) => `${relative(SRC, file)} → ${relative(SRC, d)}`),
    )
    expect(into).toEqual([])
    const jose = files.filter((f) => layerOf(f) !== 'oauth' && /\bfrom\s*['"]jose['"]/.test(readFileSync(f, 'utf8')))
    expect(jose.map((f) => relative(SRC, f))).toEqual([])
  })

  it('nothing outside src/opentelemetry/ imports it or @opentelemetry/* (the API is an optional peer: without it, nothing is loaded)', () => {
    const into = [...graph].flatMap(([file, deps]) =>
      layerOf(file) === 'opentelemetry'
        ? []
        : deps.filter((d) => layerOf(d) === 'opentelemetry').map((d) => `${relative(SRC, file)} → ${relative(SRC, d)}`),
    )
    expect(into).toEqual([])
    const otel = files.filter(
      (f) => layerOf(f) !== 'opentelemetry' && /['"]@opentelemetry\//.test(readFileSync(f, 'utf8')),
    )
    expect(otel.map((f) => relative(SRC, f))).toEqual([])
    // and src/opentelemetry/ does import it: the check looks at the right files
    expect(
      files.some((f) => layerOf(f) === 'opentelemetry' && /from '@opentelemetry\/api'/.test(readFileSync(f, 'utf8'))),
    ).toBe(true)
  })

  it('the rest of src/ imports server/tasks/ only as types, or its installer symbol (a Worker without tasks carries none of it)', () => {
    const TASKS = join(SRC, 'server/tasks')
    const wrong: string[] = []
    for (const file of files) {
      const rel = relative(SRC, file)
      // the task stores (a Durable Object's, Redis's) build on the engine: their entry points are imported on purpose
      if (file.startsWith(TASKS) || ENTRY_POINTS.has(rel) || ['cloudflare', 'redis'].includes(layerOf(file))) continue
      const source = readFileSync(file, 'utf8')
      for (const m of source.matchAll(/^(import|export)\s+(type\s+)?\{([^}]*)\}\s*from\s*'(\.[^']+)'/gm)) {
        if (!resolve(dirname(file), m[4]).startsWith(TASKS)) continue
        const values = m[2]
          ? []
          : m[3]
              .split(',')
              .map((n) => n.trim())
              .filter((n) => n && !n.startsWith('type '))
        if (values.some((n) => n !== 'INSTALL_TASKS')) wrong.push(`${rel}: ${m[0]}`)
      }
    }
    expect(wrong).toEqual([])
  })

  it('has no import cycle', () => {
    expect(findCycles(graph)).toEqual([])
  })

  it('the checks find a planted upward import and a planted cycle', () => {
    const at = (p: string) => join(SRC, p)
    const planted = new Map([
      [at('server/a.ts'), [at('client/b.ts')]],
      [at('client/b.ts'), [at('server/a.ts')]],
      [at('protocol/c.ts'), [at('encoding/d.ts')]],
      [at('encoding/d.ts'), []],
    ])
    expect(upwardImports(planted)).toEqual([
      'server/a.ts (server) → client/b.ts (client)',
      'client/b.ts (client) → server/a.ts (server)',
    ])
    expect(findCycles(planted)).toEqual(['server/a.ts → client/b.ts → server/a.ts'])
  })
})
