#!/usr/bin/env node
/**
 * The packed README's links, made absolute: the npm page shows README.md from the tarball, where the
 * files it links to (docs/, examples/, src/…) do not exist. Run from the package folder (npm runs
 * lifecycle scripts there):
 *
 *   node scripts/readme-links.mjs rewrite   # prepack: README.md's relative links → the repository on GitHub
 *   node scripts/readme-links.mjs restore   # postpack / postpublish: the original README.md back
 *
 * `rewrite` keeps the original in `.readme-links-backup.md` first, then writes README.md with every
 * relative link target made absolute: `https://github.com/<owner>/<name>/blob/main/<path>` for a file,
 * `/tree/main/<path>` for a folder, `/raw/main/<path>` for an image; a `#anchor` is kept. Absolute URLs,
 * in-page `#anchor`s and anything inside code (fenced blocks, `code spans`) are left alone. Handles inline
 * links and images, reference definitions (`[id]: path`) and HTML `href`/`src`. The repository is read
 * from package.json `repository` (a GitHub URL, `github:owner/name` or `owner/name`).
 *
 * Robust when a pack stops midway (prepack ran, postpack did not): the next `rewrite` or `restore`
 * finds the backup and puts it back first. It refuses (exit 1) when README.md was edited since it was
 * rewritten, rather than lose that edit; a relative link to a path that does not exist fails it too.
 * Under `npm publish`, npm reads README.md again after the pack (for the registry's `readme`), so the
 * postpack leaves the rewritten README in place and the postpublish restores it.
 *
 * Plain Node ESM, no dependencies.
 */
import { existsSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs'
import { join, posix, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'

const README = 'README.md'
const BACKUP = '.readme-links-backup.md'
const BRANCH = 'main'
const IMAGE = /\.(?:png|jpe?g|gif|svg|webp|avif)$/i

/** `https://github.com/owner/name` from package.json `repository`; throws for anything not on GitHub. */
export function repositoryBase(repository) {
  const raw = typeof repository === 'string' ? repository : repository?.url
  if (!raw) throw new Error('package.json has no "repository"')
  const m =
    /^(?:git\+)?(?:https?|ssh|git):\/\/(?:git@)?github\.com[/:]([\w.-]+)\/([\w.-]+?)(?:\.git)?\/?$/.exec(raw) ??
    /^git@github\.com:([\w.-]+)\/([\w.-]+?)(?:\.git)?$/.exec(raw) ??
    /^(?:github:)?([\w.-]+)\/([\w.-]+)$/.exec(raw)
  if (!m) throw new Error(`package.json "repository" is not a GitHub repository: ${raw}`)
  return `https://github.com/${m[1]}/${m[2]}`
}

/**
 * The absolute URL for a link target, or undefined to leave it as it is (absolute, in-page, empty).
 * `dir` is the package folder the README sits in; throws when a relative target does not exist there.
 */
function absolute(target, { base, dir, image }) {
  if (target === '' || target.startsWith('#') || target.startsWith('//') || /^[a-z][a-z0-9+.-]*:/i.test(target)) {
    return undefined
  }
  const cut = target.search(/[?#]/)
  const path = cut < 0 ? target : target.slice(0, cut)
  const rest = cut < 0 ? '' : target.slice(cut)
  const rel = posix.normalize(decodeURI(path).replace(/^\/+/, '')).replace(/\/+$/, '')
  if (rel === '..' || rel.startsWith('../')) throw new Error(`${README}: link '${target}' leaves the repository`)
  const onDisk = join(dir, rel)
  if (!existsSync(onDisk)) throw new Error(`${README}: link '${target}' points to ${rel}, which does not exist`)
  const encoded = encodeURI(rel === '.' ? '' : rel)
  const kind = statSync(onDisk).isDirectory() ? 'tree' : image || IMAGE.test(rel) ? 'raw' : 'blob'
  return `${base}/${kind}/${BRANCH}${encoded ? '/' + encoded : ''}${rest}`
}

/** [start, end) of each code span in a line (a run of n backticks up to the next run of exactly n). */
function codeSpans(line) {
  const spans = []
  const runs = [...line.matchAll(/`+/g)]
  for (let i = 0; i < runs.length; i++) {
    const close = runs.findIndex((r, j) => j > i && r[0].length === runs[i][0].length)
    if (close < 0) continue
    spans.push([runs[i].index, runs[close].index + runs[close][0].length])
    i = close
  }
  return spans
}

/** Whether the `](` at `at` closes an image: the matching `[` (outside code spans) follows a `!`. */
function isImage(line, at, inCode) {
  let depth = 0
  for (let i = at; i >= 0; i--) {
    if (inCode(i)) continue
    if (line[i] === ']' && line[i - 1] !== '\\') depth++
    else if (line[i] === '[' && line[i - 1] !== '\\' && --depth === 0) return line[i - 1] === '!'
  }
  return false
}

/** Rewrites one line outside fenced code; returns [line, number of links rewritten]. */
function rewriteLine(line, options) {
  const spans = codeSpans(line)
  const inCode = (i) => spans.some(([s, e]) => i >= s && i < e)
  let count = 0
  const swap = (target, image, wrap = (t) => t) => {
    const url = absolute(target, { ...options, image })
    if (url === undefined) return undefined
    count++
    return wrap(url)
  }
  const def = /^( {0,3}\[(?!\^)[^\]]+\]:[ \t]*)(<[^>]*>|\S+)(.*)$/.exec(line)
  if (def && !inCode(0)) {
    const angled = def[2].startsWith('<')
    const url = swap(angled ? def[2].slice(1, -1) : def[2], false, (u) => (angled ? `<${u}>` : u))
    return [url === undefined ? line : def[1] + url + def[3], count]
  }
  const inline = /\]\((\s*)(<[^>\n]*>|[^\s()<>]+(?:\([^\s()]*\)[^\s()<>]*)*)/g
  line = line.replace(inline, (match, space, dest, at) => {
    if (inCode(at)) return match
    const angled = dest.startsWith('<')
    const url = swap(angled ? dest.slice(1, -1) : dest, isImage(line, at, inCode), (u) => (angled ? `<${u}>` : u))
    return url === undefined ? match : `](${space}${url}`
  })
  const html = /(<(a|img|source)\b[^>]*?\s(?:href|src|srcset)=)(["'])(.*?)\3/gi
  line = line.replace(html, (match, head, tag, quote, target, at) => {
    if (inCode(at)) return match
    const url = swap(target, tag.toLowerCase() !== 'a')
    return url === undefined ? match : `${head}${quote}${url}${quote}`
  })
  return [line, count]
}

/**
 * `markdown` with its relative links absolute. `base` is `https://github.com/owner/name`, `dir` the
 * folder the README is in (to tell files from folders). Returns `{ text, count }`.
 */
export function absoluteLinks(markdown, { base, dir }) {
  let fence
  let count = 0
  const lines = markdown.split('\n').map((line) => {
    const open = /^ {0,3}(`{3,}|~{3,})/.exec(line)
    if (fence) {
      if (open && open[1][0] === fence[0] && open[1].length >= fence.length && !/\S/.test(line.slice(open[0].length)))
        fence = undefined
      return line
    }
    if (open) {
      fence = open[1]
      return line
    }
    const [out, n] = rewriteLine(line, { base, dir })
    count += n
    return out
  })
  return { text: lines.join('\n'), count }
}

function main(command, dir = process.cwd()) {
  const readmePath = join(dir, README)
  const backupPath = join(dir, BACKUP)
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
  const rewrite = (text) => absoluteLinks(text, { base: repositoryBase(pkg.repository), dir })

  /** Puts the backup back; refuses when README.md is neither the original nor its rewrite (edited since). */
  const putBack = () => {
    const original = readFileSync(backupPath, 'utf8')
    const current = readFileSync(readmePath, 'utf8')
    if (current !== original && current !== rewrite(original).text) {
      throw new Error(
        `${README} was edited after its links were rewritten; the original is in ${BACKUP}. ` +
          `Merge your edit into it, move it to ${README}, and pack again.`,
      )
    }
    writeFileSync(readmePath, original)
    unlinkSync(backupPath)
  }

  if (command === 'rewrite') {
    if (existsSync(backupPath)) {
      putBack()
      console.log(`readme-links: restored ${README} from ${BACKUP} (a previous pack stopped midway)`)
    }
    const original = readFileSync(readmePath, 'utf8')
    const { text, count } = rewrite(original)
    writeFileSync(backupPath + '.tmp', original)
    renameSync(backupPath + '.tmp', backupPath)
    writeFileSync(readmePath, text)
    console.log(`readme-links: ${count} relative link(s) in ${README} made absolute (original in ${BACKUP})`)
  } else if (command === 'restore') {
    if (!existsSync(backupPath)) return
    if (process.env.npm_command === 'publish' && process.env.npm_lifecycle_event === 'postpack') {
      console.log(`readme-links: ${README} stays rewritten until postpublish (npm publish reads it again)`)
      return
    }
    putBack()
    console.log(`readme-links: ${README} restored`)
  } else {
    throw new Error('usage: node scripts/readme-links.mjs rewrite|restore')
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  try {
    main(process.argv[2])
  } catch (error) {
    console.error(`readme-links: ${error instanceof Error ? error.message : String(error)}`)
    process.exit(1)
  }
}
