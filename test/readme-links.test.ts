/**
 * The README stays short and navigable, and no documentation link is broken: README.md is at most 400
 * lines with a Contents list naming its `##` sections in order, and every relative link in README.md,
 * docs/*.md, web-demo/README.md and examples/**\/README.md names an existing file or folder (and its
 * `#anchor` a heading there, by GitHub's anchor rules). Failures are listed as `file:line → target: why`.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, sep } from 'node:path'
import { describe, expect, it } from 'vitest'
import { markdownFilesUnder, parseMarkdown, readMarkdown, slug, type Markdown } from './markdown.ts'

const ROOT = join(import.meta.dirname, '..')
const MAX_README_LINES = 400

/** The documentation whose links are checked. */
function documentation(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => join(ROOT, 'docs', f))
  const examples = markdownFilesUnder(join(ROOT, 'examples')).filter((f) => f.endsWith(`${sep}README.md`))
  return [join(ROOT, 'README.md'), ...docs.sort(), join(ROOT, 'web-demo/README.md'), ...examples]
}

const parsed = new Map<string, Markdown>()
function markdown(path: string): Markdown {
  let md = parsed.get(path)
  if (!md) parsed.set(path, (md = readMarkdown(path, ROOT)))
  return md
}

/** Why a link does not resolve, or undefined when it does. */
function brokenReason(from: string, target: string): string | undefined {
  if (target === '') return 'empty link'
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) return undefined // absolute URL
  const hash = target.indexOf('#')
  const pathPart = decodeURI(hash < 0 ? target : target.slice(0, hash)).replace(/\?.*$/, '')
  const anchor = hash < 0 ? undefined : decodeURIComponent(target.slice(hash + 1))
  const path = pathPart === '' ? from : join(dirname(from), pathPart)
  const rel = relative(ROOT, path)
  if (rel.startsWith('..')) return 'leaves the repository'
  if (!existsSync(path)) return `${rel} does not exist`
  if (anchor === undefined) return undefined
  if (statSync(path).isDirectory() || !path.endsWith('.md')) return `#${anchor} on ${rel}, which is not a Markdown file`
  const headings = markdown(path).headings.map((h) => h.slug)
  return headings.includes(anchor) ? undefined : `${rel} has no heading #${anchor}`
}

describe('the documentation', () => {
  it('checks the files it should', () => {
    const files = documentation().map((f) => relative(ROOT, f))
    expect(files).toContain('README.md')
    expect(files).toContain('docs/authorization.md')
    expect(files).toContain('web-demo/README.md')
    expect(files.length).toBeGreaterThan(10)
  })

  it(`README.md is at most ${MAX_README_LINES} lines`, () => {
    const lines = readFileSync(join(ROOT, 'README.md'), 'utf8').replace(/\n$/, '').split('\n').length
    expect(lines, `README.md has ${lines} lines; move detail into docs/`).toBeLessThanOrEqual(MAX_README_LINES)
  })

  it('README.md has a Contents list whose entries are its ## sections, in order', () => {
    const readme = markdown(join(ROOT, 'README.md'))
    const text = readFileSync(join(ROOT, 'README.md'), 'utf8').split('\n')
    const contents = readme.headings.find((h) => h.depth === 2 && h.text === 'Contents')
    expect(contents, 'a "## Contents" heading').toBeDefined()
    const sections = readme.headings.filter((h) => h.depth === 2 && h !== contents)
    expect(sections[0]?.line, 'Contents comes before the first section').toBeGreaterThan(contents!.line)
    const entries: string[] = []
    for (const line of text.slice(contents!.line, sections[0]?.line)) {
      const entry = /^[-*] \[[^\]]+\]\(#([^)]+)\)/.exec(line) ?? /^\d+\. \[[^\]]+\]\(#([^)]+)\)/.exec(line)
      if (entry) entries.push(entry[1])
    }
    expect(entries).toEqual(sections.map((h) => h.slug))
  })

  it('every relative link resolves to a file, and every #anchor to a heading', () => {
    const failures: string[] = []
    let checked = 0
    for (const path of documentation()) {
      for (const link of markdown(path).links) {
        const reason = brokenReason(path, link.target)
        if (!/^[a-z][a-z0-9+.-]*:/i.test(link.target)) checked++
        if (reason) failures.push(`${link.file}:${link.line} → ${link.target}: ${reason}`)
      }
    }
    expect(checked).toBeGreaterThan(50)
    expect(failures.join('\n'), `${failures.length} broken link(s)`).toBe('')
  })
})

describe('the Markdown reader the documentation tests share', () => {
  it("gives headings GitHub's anchors", () => {
    const md = parseMarkdown(
      [
        '# edge-mcp',
        '## Protocol eras: 2026-07-28 and 2025-11-25',
        '### Notifications: `subscriptions/listen`',
        '## OAuth (client)',
        '## Deploy to Workers',
        '## Deploy to Workers',
        '## Sealed requestState — why',
      ].join('\n'),
      'x.md',
    )
    expect(md.headings.map((h) => h.slug)).toEqual([
      'edge-mcp',
      'protocol-eras-2026-07-28-and-2025-11-25',
      'notifications-subscriptionslisten',
      'oauth-client',
      'deploy-to-workers',
      'deploy-to-workers-1',
      'sealed-requeststate--why',
    ])
    expect(slug('A_b  C')).toBe('a_b--c')
  })

  it('reads fenced blocks with their info string and line, and no links or headings inside them', () => {
    const md = parseMarkdown(
      [
        'See [the guide](docs/a.md#x) and `[not](a link)`.', // 1
        '```ts file=examples/runtimes/deno.ts', // 2
        "import x from 'y' // [no](link.md)", // 3
        '# not a heading', // 4
        '```', // 5
        '- a list item:', // 6
        '', // 7
        '  ~~~~sh fragment', // 8
        '  npm start', // 9
        '  ~~~~', // 10
        '![logo](img/logo.png) [ref]: nope', // 11
        '[ref]: ./docs/b.md', // 12
      ].join('\n'),
      'x.md',
    )
    expect(md.blocks).toEqual([
      {
        lang: 'ts',
        info: 'ts file=examples/runtimes/deno.ts',
        attributes: { file: 'examples/runtimes/deno.ts' },
        flags: [],
        body: "import x from 'y' // [no](link.md)\n# not a heading",
        file: 'x.md',
        line: 2,
      },
      {
        lang: 'sh',
        info: 'sh fragment',
        attributes: {},
        flags: ['fragment'],
        body: 'npm start',
        file: 'x.md',
        line: 8,
      },
    ])
    expect(md.headings).toEqual([])
    expect(md.links.map((l) => [l.line, l.target, l.image])).toEqual([
      [1, 'docs/a.md#x', false],
      [11, 'img/logo.png', true],
      [12, './docs/b.md', false],
    ])
  })

  it('reports a broken link, a missing anchor and a path outside the repository', () => {
    const readme = join(ROOT, 'README.md')
    expect(brokenReason(readme, 'docs/no-such-guide.md')).toBe('docs/no-such-guide.md does not exist')
    expect(brokenReason(readme, 'docs/authorization.md#no-such-heading')).toBe(
      'docs/authorization.md has no heading #no-such-heading',
    )
    expect(brokenReason(readme, '#no-such-section')).toBe('README.md has no heading #no-such-section')
    expect(brokenReason(readme, '../outside.md')).toBe('leaves the repository')
    expect(brokenReason(readme, 'package.json#x')).toBe('#x on package.json, which is not a Markdown file')
    expect(brokenReason(readme, 'docs/authorization.md#try-it-locally')).toBeUndefined()
    expect(brokenReason(readme, 'examples/dependencies')).toBeUndefined()
    expect(brokenReason(readme, 'https://example.com/x')).toBeUndefined()
  })
})
