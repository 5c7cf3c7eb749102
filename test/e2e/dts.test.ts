/**
 * The published declarations work for a consumer: a project under test-results/dts/ imports
 * `edge-mcp/...` (package self-reference, so the imports reach dist/*.d.ts exactly as an installed
 * package would) and is type-checked with a typical user's settings (strict, NodeNext, skipLibCheck,
 * no exactOptionalPropertyTypes). It holds the README's code (test/fixtures/dts-consumer/usage.ts) and
 * generated files that mention every export of every entry point: all of them in one file, and each
 * on its own in a fresh compiler. The second matters: with skipLibCheck a type is derived lazily, on
 * first use, and a type that is too deep to derive in one go (TS2589) passes whenever something else
 * happened to derive its parts first.
 *
 * Every ```ts block of README.md and docs/*.md is written to test-results/dts/docs/ as a file of its own
 * and type-checked the same way, in a fresh compiler each, so the documentation cannot show code that
 * does not compile. Two markers in a fence's info string opt a block out: `file=<path>` (a verbatim copy
 * of that file, checked with it by the test that runs it) and `fragment` (not compilable on its own;
 * at most two). Needs `npm run build` first (npm test does).
 *
 * The same project (the README's code, every export, every block) is also type-checked by TypeScript 7,
 * the native compiler a fresh `npm i -D typescript` installs (test/tools.ts), in one run of its `tsc`.
 */
import { execFile } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { promisify } from 'node:util'
import ts from 'typescript'
import { beforeAll, describe, expect, it } from 'vitest'
import { readMarkdown, type CodeBlock } from '../markdown.ts'
import { ensureTool, TOOL_VERSIONS } from '../tools.ts'

const ROOT = join(import.meta.dirname, '../..')
const OUT = join(ROOT, 'test-results/dts')
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  name: string
  exports: Record<string, { types: string }>
}
const ENTRIES = Object.entries(pkg.exports).map(([sub, { types }]) => ({
  specifier: pkg.name + sub.slice(1),
  file: join(ROOT, types),
}))

/** The compiler options of a typical consumer (exactOptionalPropertyTypes and noUncheckedIndexedAccess off). */
const CONSUMER: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  lib: ['lib.es2023.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
  types: ['node'],
  strict: true,
  skipLibCheck: true,
  noEmit: true,
}

/** A compiler host that parses each library file once, for the many small programs below. */
function sharedHost(): ts.CompilerHost {
  const host = ts.createCompilerHost(CONSUMER)
  const parsed = new Map<string, ts.SourceFile | undefined>()
  return {
    ...host,
    getSourceFile(fileName, language, onError, shouldCreate) {
      if (fileName.startsWith(OUT)) return host.getSourceFile(fileName, language, onError, shouldCreate)
      if (!parsed.has(fileName)) parsed.set(fileName, host.getSourceFile(fileName, language, onError, shouldCreate))
      return parsed.get(fileName)
    },
  }
}

interface Exported {
  specifier: string
  name: string
  /** The TypeScript type to instantiate: the type itself (`any` for each type parameter without a default), or the value's type. */
  type: string
  /** The declaration it resolves to (entry points re-export the same declarations). */
  target: ts.Symbol
}

/** Every export of one entry's .d.ts, read with the compiler API. */
function exportsOf(program: ts.Program, specifier: string, file: string, alias: string): Exported[] {
  const checker = program.getTypeChecker()
  const module = checker.getSymbolAtLocation(program.getSourceFile(file)!)
  if (!module) throw new Error(`${file} is not a module`)
  return checker.getExportsOfModule(module).map((exported) => {
    const target = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported
    const ref = `${alias}.${exported.name}`
    if (target.flags & ts.SymbolFlags.Type) {
      const declaration = target.declarations?.find(
        (d) => ts.isTypeAliasDeclaration(d) || ts.isInterfaceDeclaration(d) || ts.isClassDeclaration(d),
      )
      const required = (
        declaration && 'typeParameters' in declaration ? (declaration.typeParameters ?? []) : []
      ).filter((p) => !p.default).length
      return {
        specifier,
        name: exported.name,
        target,
        type: required ? `${ref}<${Array(required).fill('any').join(', ')}>` : ref,
      }
    }
    // a valibot schema: what it parses to (the same-named type when there is one, this otherwise)
    const isSchema = checker.getTypeOfSymbol(target).getProperty('~types') !== undefined
    return {
      specifier,
      name: exported.name,
      target,
      type: isSchema ? `import('valibot').InferOutput<typeof ${ref}>` : `typeof ${ref}`,
    }
  })
}

/** The documentation whose TypeScript blocks are compiled. */
const DOCS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
]
const BLOCKS = DOCS.flatMap((file) => readMarkdown(join(ROOT, file), ROOT).blocks)
const isTypeScript = (b: CodeBlock) => b.lang === 'ts' || b.lang === 'typescript'
/** The blocks compiled here: TypeScript, neither a copy of a file (`file=`) nor a `fragment`. */
const COMPILED = BLOCKS.filter(
  (b) => isTypeScript(b) && b.attributes.file === undefined && !b.flags.includes('fragment'),
)
/** Where a block is written: test-results/dts/docs/README-L78.ts, docs_server-L40.ts, … */
const blockFile = (b: CodeBlock) => `docs/${b.file.replace(/\.md$/, '').replaceAll('/', '_')}-L${b.line}.ts`

const header = (specifiers: string[]) =>
  specifiers.map((s) => `import type * as e${ENTRIES.findIndex((e) => e.specifier === s)} from '${s}'`)
const declaration = (x: Exported, n: number) =>
  `export declare function f_${n}(x: ${x.type}): ${x.type} // ${x.specifier} ${x.name}`
const format = (diagnostics: readonly ts.Diagnostic[]) =>
  ts.formatDiagnostics(diagnostics, {
    getCanonicalFileName: (f) => f,
    getCurrentDirectory: () => ROOT,
    getNewLine: () => '\n',
  })

describe('the published declarations, as a consumer compiles them', () => {
  const host = sharedHost()
  let exported: Exported[]
  let generated: string
  const program = (file: string) => ts.createProgram([join(OUT, file)], CONSUMER, host)

  beforeAll(() => {
    for (const { file } of ENTRIES)
      if (!existsSync(file))
        throw new Error(`${relative(ROOT, file)} is missing: run \`npm run build\` first (npm test does)`)
    rmSync(OUT, { recursive: true, force: true })
    mkdirSync(join(OUT, 'isolated'), { recursive: true })
    mkdirSync(join(OUT, 'docs'), { recursive: true })
    // line N of the file is line `block.line + N` of the Markdown; `export {}` keeps every block a module
    for (const b of COMPILED) writeFileSync(join(OUT, blockFile(b)), `${b.body}\nexport {}\n`)
    const entryPoints = ts.createProgram(
      ENTRIES.map((e) => e.file),
      CONSUMER,
      host,
    )
    exported = ENTRIES.flatMap(({ specifier, file }, i) => exportsOf(entryPoints, specifier, file, `e${i}`))
    generated =
      [
        '// Generated by test/e2e/dts.test.ts: every export of every entry point.',
        ...header(ENTRIES.map((e) => e.specifier)),
        ...exported.map(declaration),
      ].join('\n') + '\n'
    writeFileSync(join(OUT, 'every-export.ts'), generated)
    copyFileSync(join(ROOT, 'test/fixtures/dts-consumer/usage.ts'), join(OUT, 'usage.ts'))
    writeFileSync(
      join(OUT, 'tsconfig.json'), // the same settings, for `npx tsc -p test-results/dts` by hand
      JSON.stringify(
        {
          compilerOptions: {
            target: 'ES2022',
            module: 'NodeNext',
            moduleResolution: 'NodeNext',
            lib: ['ES2023', 'DOM', 'DOM.Iterable'],
            types: ['node'],
            strict: true,
            skipLibCheck: true,
            noEmit: true,
          },
          include: ['*.ts', 'docs/*.ts'],
        },
        null,
        2,
      ),
    )
  }, 120_000)

  it('enumerates the exports of every entry point and resolves them to dist/, not src/', () => {
    for (const { specifier } of ENTRIES)
      expect(exported.filter((x) => x.specifier === specifier).length, specifier).toBeGreaterThan(0)
    for (const line of [
      'e0.InputResponses): e0.InputResponses // edge-mcp InputResponses',
      'e0.InputRequiredResult): e0.InputRequiredResult // edge-mcp InputRequiredResult',
      "import('valibot').InferOutput<typeof e0.TextResourceContents>",
      'e1.McpServer): e1.McpServer // edge-mcp/server McpServer',
      'e1.HandlerContext): e1.HandlerContext // edge-mcp/server HandlerContext',
      'typeof e1.createFetchHandler): typeof e1.createFetchHandler // edge-mcp/server createFetchHandler',
      'e2.Client): e2.Client // edge-mcp/client Client',
      'typeof e3.createHonoHandler): typeof e3.createHonoHandler // edge-mcp/hono createHonoHandler',
      'e4.BrowserFormOptions): e4.BrowserFormOptions // edge-mcp/browser BrowserFormOptions',
    ]) {
      expect(generated).toContain(line)
    }
    const files = program('every-export.ts')
      .getSourceFiles()
      .map((f) => relative(ROOT, f.fileName))
    for (const { file } of ENTRIES) expect(files).toContain(relative(ROOT, file))
    expect(files.filter((f) => f.startsWith('src/'))).toEqual([])
  })

  // one program per file: a type derived (and cached) for one file must not hide a failure in another
  it.each(['usage.ts', 'every-export.ts'])(
    'type-checks %s with zero diagnostics',
    (file) => {
      expect(format(ts.getPreEmitDiagnostics(program(file)))).toBe('')
    },
    120_000,
  )

  it('type-checks each export on its own, in a fresh compiler, with zero diagnostics', () => {
    const seen = new Set<ts.Symbol>()
    const unique = exported.filter((x) => !seen.has(x.target) && seen.add(x.target))
    expect(unique.length).toBeGreaterThan(100)
    const failures = unique.flatMap((x, n) => {
      const file = `isolated/${n}-${x.specifier.replaceAll('/', '_')}-${x.name}.ts`
      writeFileSync(join(OUT, file), [...header([x.specifier]), declaration(x, n)].join('\n') + '\n')
      return format(ts.getPreEmitDiagnostics(program(file)))
    })
    expect(failures.join('')).toBe('')
  }, 300_000)
  it('finds the TypeScript blocks of the README and every guide, and no code in a language it does not check', () => {
    expect(COMPILED.filter((b) => b.file === 'README.md').length).toBeGreaterThanOrEqual(6)
    expect(new Set(COMPILED.map((b) => b.file)).size).toBeGreaterThan(10)
    // docs/migrating.md: the official SDK's code beside edge-mcp's, both compiled
    const migrating = COMPILED.filter((b) => b.file === 'docs/migrating.md')
    expect(migrating.filter((b) => b.body.includes("from '@modelcontextprotocol/")).length).toBeGreaterThanOrEqual(12)
    expect(migrating.filter((b) => b.body.includes("from 'edge-mcp/")).length).toBeGreaterThanOrEqual(12)
    const fragments = BLOCKS.filter((b) => isTypeScript(b) && b.flags.includes('fragment'))
    expect(
      fragments.length,
      `at most two \`fragment\` blocks: ${fragments.map((b) => `${b.file}:${b.line}`).join(', ')}`,
    ).toBeLessThanOrEqual(2)
    const unchecked = BLOCKS.filter((b) => ['js', 'javascript', 'mjs', 'tsx', 'jsx', 'mts'].includes(b.lang))
    expect(
      unchecked.map((b) => `${b.file}:${b.line} \`\`\`${b.info}`),
      'write these as ```ts',
    ).toEqual([])
  })

  // TypeScript 7 has no compiler API to share a host with: its `tsc` over the project's tsconfig.json, once
  it('type-checks the usage, every export and every block with TypeScript 7 too, with zero diagnostics', async () => {
    const tsc = await ensureTool('typescript')
    const run = promisify(execFile)
    expect((await run(process.execPath, [tsc, '--version'])).stdout.trim()).toBe(`Version ${TOOL_VERSIONS.typescript}`)
    const result = await run(process.execPath, [tsc, '-p', OUT, '--pretty', 'false', '--listFilesOnly']).catch(
      (e: { stdout: string }) => e,
    )
    expect(result.stdout).toContain(join(OUT, 'every-export.ts'))
    expect(result.stdout).toContain(join(OUT, blockFile(COMPILED[0])))
    const checked = await run(process.execPath, [tsc, '-p', OUT, '--pretty', 'false']).catch(
      (e: { stdout: string }) => e,
    )
    expect(checked.stdout).toBe('')
  }, 180_000)

  // one program per block, as for the exports: each block stands on its own, as a reader copies it
  it.each(COMPILED.map((b) => [`${b.file}:${b.line}`, b] as const))(
    'type-checks the block at %s with zero diagnostics',
    (_, block) => {
      const diagnostics = ts.getPreEmitDiagnostics(program(blockFile(block)))
      const where = (d: ts.Diagnostic) => {
        if (!d.file || d.start === undefined) return block.file
        const { line, character } = d.file.getLineAndCharacterOfPosition(d.start)
        const inBlock = d.file.fileName === join(OUT, blockFile(block))
        return inBlock ? `${block.file}:${block.line + line + 1}:${character + 1}` : relative(ROOT, d.file.fileName)
      }
      const messages = diagnostics.map(
        (d) => `${where(d)}: TS${d.code}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`,
      )
      expect(messages.join('\n')).toBe('')
    },
    120_000,
  )
})
