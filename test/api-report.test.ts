/**
 * The public API, pinned: the sorted exports of every entry point in package.json `exports`, values and
 * types, read by the TypeScript compiler from src/. Any change to the public surface changes
 * `test/api-report.txt` and so shows in review. After an intended change: `UPDATE_API_REPORT=1 npx vitest
 * run test/api-report.test.ts`, then read the diff. All entry points together stay under 220 names.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

const ROOT = join(import.meta.dirname, '..')
const REPORT = join(import.meta.dirname, 'api-report.txt')

/** package.json `exports` subpath → the src/ entry file it is built from. */
function entryPoints(): Record<string, string> {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    name: string
    exports: Record<string, { default: string }>
  }
  const out: Record<string, string> = {}
  for (const [subpath, target] of Object.entries(pkg.exports)) {
    const name = subpath === '.' ? pkg.name : `${pkg.name}/${subpath.slice(2)}`
    out[name] = join(ROOT, target.default.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts'))
  }
  return out
}

/** The report: per entry point, its export names sorted, each marked `value` or `type`. */
function apiReport(): string {
  const entries = entryPoints()
  const program = ts.createProgram(Object.values(entries), {
    allowImportingTsExtensions: true,
    noEmit: true,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
  })
  const checker = program.getTypeChecker()
  const lines: string[] = []
  for (const [name, file] of Object.entries(entries)) {
    const module = checker.getSymbolAtLocation(program.getSourceFile(file)!)!
    const names = checker.getExportsOfModule(module).map((symbol) => {
      const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol
      return `  ${symbol.name} ${target.flags & ts.SymbolFlags.Value ? 'value' : 'type'}`
    })
    lines.push(`${name} (${names.length})`, ...names.sort())
  }
  return lines.join('\n') + '\n'
}

describe('public API report', () => {
  const report = apiReport()

  it('every entry point in package.json is read, and none is empty', () => {
    for (const name of Object.keys(entryPoints())) expect(report).toMatch(new RegExp(`^${name} \\([1-9]`, 'm'))
  })

  it('matches test/api-report.txt (run with UPDATE_API_REPORT=1 to accept a change)', () => {
    if (process.env.UPDATE_API_REPORT) writeFileSync(REPORT, report)
    expect(report).toBe(readFileSync(REPORT, 'utf8'))
  })

  it('each name is exported by one entry point only (protocol types from edge-mcp, not again from each side)', () => {
    const owners = new Map<string, string[]>()
    let entry = ''
    for (const line of report.split('\n')) {
      if (!line) continue
      if (!line.startsWith('  ')) entry = line.split(' ')[0]!
      else owners.set(line.trim().split(' ')[0], [...(owners.get(line.trim().split(' ')[0]) ?? []), entry])
    }
    expect([...owners].filter(([, where]) => where.length > 1)).toEqual([])
  })

  it('no internal helper is public', () => {
    const internal = [
      ...['sleep', 'isPlainObject', 'valueAt', 'describeIssue', 'classifyMessage', 'STATE_ONLY_BACKOFF'],
      // limits and defaults (the docs state their values), and what only the SDK's own modules pass around
      ...['MAX_', 'DEFAULT_PROBE', 'DEFAULT_MAILBOX', 'DEFAULT_NOTIFICATIONS', 'ERA_VERDICT', 'INVALID_REQUEST_STATE'],
      ...['Handled', 'AesGcmKeyRing', 'LegacySession', 'RequestBinding', 'InboundMessage', 'parseBusEvent'],
      ...['toRfc3339', 'CheckedUses', 'ResolvedOf', 'isInputRequired', 'consoleLogger', 'missingCapabilityError'],
    ]
    for (const name of internal) expect(report).not.toMatch(new RegExp(`^  ${name}\\w* `, 'm'))
  })

  it('stays small: fewer than 220 names across all entry points', () => {
    const names = report.split('\n').filter((line) => line.startsWith('  '))
    expect(names.length).toBeGreaterThan(0)
    expect(names.length).toBeLessThan(220)
  })
})
