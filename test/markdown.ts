/**
 * A small Markdown reader for the documentation tests (test/readme-links.test.ts, test/e2e/dts.test.ts and
 * the runtime recipes): fenced code blocks, links and headings, each with the file and line it is on.
 * It knows what these docs use — ``` and ~~~ fences (indented ones too, inside list items), inline links
 * and images, reference definitions, `<a href>` — and skips code (fenced blocks and `code spans`) when
 * it looks for links. Not a full CommonMark parser.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'

/** A fenced code block. `line` is the 1-based line of its opening fence. */
export interface CodeBlock {
  /** The first word of the info string, lower-cased (`ts`, `sh`, `toml`; '' for none). */
  lang: string
  /** The whole info string after the fence, trimmed (`ts file=examples/runtimes/deno.ts`). */
  info: string
  /** `key=value` words of the info string (`{ file: 'examples/runtimes/deno.ts' }`). */
  attributes: Record<string, string>
  /** The other words after the language (`fragment`). */
  flags: string[]
  /** The lines between the fences, with the opening fence's indentation removed, joined by '\n'. */
  body: string
  file: string
  line: number
}

/** A link or image. `target` is as written (`docs/server.md#caching`, `https://…`, `#contents`). */
export interface Link {
  text: string
  target: string
  image: boolean
  file: string
  line: number
}

/** An ATX heading (`## Quick start`): its depth, text as written, and GitHub's anchor for it. */
export interface Heading {
  depth: number
  text: string
  slug: string
  line: number
}

export interface Markdown {
  file: string
  blocks: CodeBlock[]
  links: Link[]
  headings: Heading[]
}

const FENCE = /^(\s*)(`{3,}|~{3,})(.*)$/

/** The text a heading renders to, roughly: code spans, links and emphasis markers reduced to their text. */
function headingText(raw: string): string {
  return raw
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`([^`]*)`/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/(\*\*|__|\*)/g, '')
}

/**
 * GitHub's anchor for a heading's text (github-slugger): lower-cased, punctuation removed (letters,
 * numbers, marks, `_`, `-` and spaces stay), each space a hyphen; `seen` numbers repeats (`-1`, `-2`).
 */
export function slug(text: string, seen?: Map<string, number>): string {
  const base = headingText(text)
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
    .replace(/ /g, '-')
  if (!seen) return base
  const n = seen.get(base)
  seen.set(base, (n ?? -1) + 1)
  return n === undefined ? base : `${base}-${n + 1}`
}

/** [start, end) of each code span in a line: a run of n backticks up to the next run of exactly n. */
function codeSpans(line: string): Array<[number, number]> {
  const spans: Array<[number, number]> = []
  const runs = [...line.matchAll(/`+/g)]
  for (let i = 0; i < runs.length; i++) {
    const close = runs.findIndex((r, j) => j > i && r[0].length === runs[i][0].length)
    if (close < 0) continue
    spans.push([runs[i].index, runs[close].index + runs[close][0].length])
    i = close
  }
  return spans
}

function linksOf(line: string, file: string, lineNo: number): Link[] {
  const spans = codeSpans(line)
  const inCode = (at: number) => spans.some(([s, e]) => at >= s && at < e)
  const found: Link[] = []
  const definition = /^ {0,3}\[([^\]]+)\]:\s*<?([^\s>]+)>?/.exec(line)
  if (definition) return [{ text: definition[1], target: definition[2], image: false, file, line: lineNo }]
  // [text](target) and ![alt](target); the text may hold code spans and one level of brackets
  for (const m of line.matchAll(/(!?)\[((?:[^[\]]|\[[^\]]*\])*)\]\(\s*<?([^\s)>]*)>?(?:\s+"[^"]*")?\s*\)/g)) {
    if (inCode(m.index)) continue
    found.push({ text: m[2], target: m[3], image: m[1] === '!', file, line: lineNo })
  }
  for (const m of line.matchAll(/<(a|img)\b[^>]*?\s(?:href|src)=(["'])(.*?)\2/gi)) {
    if (inCode(m.index)) continue
    found.push({ text: '', target: m[3], image: m[1].toLowerCase() === 'img', file, line: lineNo })
  }
  return found
}

/** Reads one Markdown text; `file` is the name reported with each block, link and heading. */
export function parseMarkdown(text: string, file: string): Markdown {
  const lines = text.split('\n')
  const blocks: CodeBlock[] = []
  const links: Link[] = []
  const headings: Heading[] = []
  const seen = new Map<string, number>()
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i])
    if (open && !(open[2][0] === '`' && open[3].includes('`'))) {
      const [, indent, fence, rest] = open
      const info = rest.trim()
      const words = info.split(/\s+/).filter(Boolean)
      const attributes: Record<string, string> = {}
      const flags: string[] = []
      for (const word of words.slice(1)) {
        const eq = word.indexOf('=')
        if (eq > 0) attributes[word.slice(0, eq)] = word.slice(eq + 1)
        else flags.push(word)
      }
      const body: string[] = []
      let j = i + 1
      for (; j < lines.length; j++) {
        const close = FENCE.exec(lines[j])
        if (close && close[2][0] === fence[0] && close[2].length >= fence.length && close[3].trim() === '') break
        body.push(lines[j].startsWith(indent) ? lines[j].slice(indent.length) : lines[j].trimStart())
      }
      blocks.push({
        lang: (words[0] ?? '').toLowerCase(),
        info,
        attributes,
        flags,
        body: body.join('\n'),
        file,
        line: i + 1,
      })
      i = j
      continue
    }
    const heading = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(lines[i])
    if (heading)
      headings.push({ depth: heading[1].length, text: heading[2], slug: slug(heading[2], seen), line: i + 1 })
    links.push(...linksOf(lines[i], file, i + 1))
  }
  return { file, blocks, links, headings }
}

/** Reads a Markdown file; `root` makes the reported name relative (`docs/server.md`). */
export function readMarkdown(path: string, root: string): Markdown {
  return parseMarkdown(readFileSync(path, 'utf8'), relative(root, path))
}

/** Every `*.md` file under `dir` (recursively, skipping node_modules and dist), sorted. */
export function markdownFilesUnder(dir: string): string[] {
  const out: string[] = []
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue
    const path = join(dir, name)
    if (statSync(path).isDirectory()) out.push(...markdownFilesUnder(path))
    else if (name.endsWith('.md')) out.push(path)
  }
  return out.sort()
}
