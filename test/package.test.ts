/** What `npm pack` ships: every entry point of `exports`, built (`prepack` builds; npm test has built already). */
import { execFile } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { ROOT } from './workerd.ts'

const run = promisify(execFile)

describe('the published package', () => {
  it('builds before packing and ships the JS and .d.ts of every entry point in exports', async () => {
    const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>
      exports: Record<string, { types: string; default: string }>
    }
    expect(pkg.scripts.prepack).toBe('npm run build')
    const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT })
    const files = new Set((JSON.parse(stdout) as Array<{ files: Array<{ path: string }> }>)[0].files.map((f) => f.path))
    const entries = Object.values(pkg.exports)
    expect(entries.length).toBeGreaterThanOrEqual(5)
    for (const entry of entries) {
      expect(files.has(entry.types.replace('./', '')), entry.types).toBe(true)
      expect(files.has(entry.default.replace('./', '')), entry.default).toBe(true)
    }
    expect([...files].filter((f) => f.startsWith('src/') || f.startsWith('test/'))).toEqual([])
  })
})
