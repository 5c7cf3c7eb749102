/** What `npm pack` ships: every entry point of `exports`, built (`prepack` builds; npm test has built already), and the prepack/postpack README link rewrite. */
import { execFile } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterEach, describe, expect, it } from 'vitest'
import { ROOT } from '../workerd.ts'

const run = promisify(execFile)

describe('the published package', () => {
  it('builds before packing and ships the JS and .d.ts of every entry point in exports', async () => {
    const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>
      exports: Record<string, { types: string; default: string }>
    }
    expect(pkg.scripts.prepack).toBe('npm run build && node scripts/readme-links.mjs rewrite')
    expect(pkg.scripts.postpack).toBe('node scripts/readme-links.mjs restore')
    expect(pkg.scripts.postpublish).toBe('node scripts/readme-links.mjs restore')
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

describe('scripts/readme-links.mjs (prepack: the README links made absolute; postpack: put back)', () => {
  const SCRIPT = join(ROOT, 'scripts/readme-links.mjs')
  const BASE = 'https://github.com/o/n'
  const ORIGINAL = [
    '# Title',
    '',
    "[A guide](docs/a.md#setup), [the examples](./examples/), [`web-demo/`](docs/a.md) and [home](https://x.test/a.md 'Home').",
    '![A screenshot](img/shot.png) [top](#title) [mail](mailto:a@b.test) `[in code](docs/a.md)`',
    '<a href="docs/a.md">guide</a> <img src="img/shot.png" alt="">',
    '',
    '```md',
    '[in a fence](docs/a.md)',
    '```',
    '',
    '[ref]: docs/a.md',
    '[^note]: A footnote, not a link.',
    '',
  ].join('\n')
  const REWRITTEN = [
    '# Title',
    '',
    `[A guide](${BASE}/blob/main/docs/a.md#setup), [the examples](${BASE}/tree/main/examples), [\`web-demo/\`](${BASE}/blob/main/docs/a.md) and [home](https://x.test/a.md 'Home').`,
    `![A screenshot](${BASE}/raw/main/img/shot.png) [top](#title) [mail](mailto:a@b.test) \`[in code](docs/a.md)\``,
    `<a href="${BASE}/blob/main/docs/a.md">guide</a> <img src="${BASE}/raw/main/img/shot.png" alt="">`,
    '',
    '```md',
    '[in a fence](docs/a.md)',
    '```',
    '',
    `[ref]: ${BASE}/blob/main/docs/a.md`,
    '[^note]: A footnote, not a link.',
    '',
  ].join('\n')

  let dir: string
  afterEach(() => rmSync(dir, { recursive: true, force: true }))
  function fixture(readme = ORIGINAL) {
    dir = mkdtempSync(join(tmpdir(), 'readme-links-'))
    for (const sub of ['docs', 'examples', 'img']) mkdirSync(join(dir, sub))
    writeFileSync(join(dir, 'docs/a.md'), '# A\n')
    writeFileSync(join(dir, 'img/shot.png'), '')
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ repository: { url: 'git+https://github.com/o/n.git' } }))
    writeFileSync(join(dir, 'README.md'), readme)
  }
  const readme = () => readFileSync(join(dir, 'README.md'), 'utf8')
  const script = (command: string, env: Record<string, string> = {}) =>
    run(process.execPath, [SCRIPT, command], { cwd: dir, env: { ...process.env, ...env } })
  const failure = (command: string) =>
    script(command).then(
      () => undefined,
      (e: { code: number; stderr: string }) => e,
    )

  it('rewrite makes relative links absolute (file → blob, folder → tree, image → raw; anchors kept; code untouched), restore puts the bytes back', async () => {
    fixture()
    await script('rewrite')
    expect(readme()).toBe(REWRITTEN)
    await script('restore')
    expect(readme()).toBe(ORIGINAL)
    expect(existsSync(join(dir, '.readme-links-backup.md'))).toBe(false)
  })

  it('a pack that stopped after prepack (no postpack) is recovered: the next rewrite starts from the original', async () => {
    fixture()
    await script('rewrite')
    await script('rewrite')
    expect(readme()).toBe(REWRITTEN)
    await script('restore')
    expect(readme()).toBe(ORIGINAL)
  })

  it('refuses to lose an edit made to the rewritten README, and keeps the original in the backup', async () => {
    fixture()
    await script('rewrite')
    writeFileSync(join(dir, 'README.md'), REWRITTEN + 'an edit\n')
    for (const command of ['rewrite', 'restore']) {
      const error = await failure(command)
      expect(error?.code).toBe(1)
      expect(error?.stderr).toContain('README.md was edited after its links were rewritten')
    }
    expect(readme()).toBe(REWRITTEN + 'an edit\n')
    expect(readFileSync(join(dir, '.readme-links-backup.md'), 'utf8')).toBe(ORIGINAL)
  })

  it('fails the pack on a relative link to a path that does not exist, leaving the README as it was', async () => {
    fixture('[gone](docs/missing.md)\n')
    const error = await failure('rewrite')
    expect(error?.code).toBe(1)
    expect(error?.stderr).toContain("link 'docs/missing.md' points to docs/missing.md, which does not exist")
    expect(readme()).toBe('[gone](docs/missing.md)\n')
    expect(existsSync(join(dir, '.readme-links-backup.md'))).toBe(false)
  })

  it('under npm publish the README stays rewritten after postpack (npm reads it again), and postpublish restores it', async () => {
    fixture()
    await script('rewrite', { npm_command: 'publish', npm_lifecycle_event: 'prepack' })
    await script('restore', { npm_command: 'publish', npm_lifecycle_event: 'postpack' })
    expect(readme()).toBe(REWRITTEN)
    await script('restore', { npm_command: 'publish', npm_lifecycle_event: 'postpublish' })
    expect(readme()).toBe(ORIGINAL)
  })
})
