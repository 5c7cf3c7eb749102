/**
 * edge-mcp as an installed app runs it: the compiled package (`dist/`, built by `npm run build`, which
 * `npm run bench` runs first), typed from `src/`. Run through tsx, `src/` would carry esbuild's keepNames
 * (a `__name()` call per closure, made on every request), a cost no user pays; the official SDK and the
 * peers are measured from their compiled packages too.
 * @module
 */
const dist = new URL('../dist/', import.meta.url)

async function load<T>(path: string): Promise<T> {
  try {
    return (await import(new URL(path, dist).href)) as T
  } catch (error) {
    throw new Error(`bench: cannot import dist/${path}: run \`npm run build\` first (\`npm run bench\` does)`, {
      cause: error,
    })
  }
}

export const server = await load<typeof import('../src/server/index.ts')>('server/index.js')
export const codec = await load<typeof import('../src/request-state/codec.ts')>('request-state/codec.js')
export const security = await load<typeof import('../src/request-state/security.ts')>('request-state/security.js')
