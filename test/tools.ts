/**
 * The Deno and Bun executables for the tests that run them. This minimal version returns the devDependency
 * in node_modules/.bin; the packaging change replaces it with one that installs the pinned version on first use.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'

/**
 * The absolute path of the `deno` or `bun` executable.
 * @throws Error when it is not installed.
 */
export function ensureTool(name: 'deno' | 'bun'): Promise<string> {
  const bin = join(import.meta.dirname, '..', 'node_modules/.bin', name)
  if (!existsSync(bin)) return Promise.reject(new Error(`${name} is not installed: run npm ci`))
  return Promise.resolve(bin)
}
