/** src/ runs wherever Web APIs run: no Node built-ins, no eval, no new Function, no innerHTML. */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { builtinModules } from 'node:module'
import { describe, expect, it } from 'vitest'

const SRC = join(import.meta.dirname, '../src')
const files = readdirSync(SRC, { recursive: true, withFileTypes: true })
  .filter((d) => d.isFile() && d.name.endsWith('.ts'))
  .map((d) => join(d.parentPath, d.name))
const BUILTINS = new Set(builtinModules.flatMap((m) => [m, m.split('/')[0]]))

/** Every module specifier of a file: static imports/exports, dynamic import(), require(). */
export function specifiers(source: string): string[] {
  const out: string[] = []
  const patterns = [
    /\b(?:import|export)\s[^'"]*?\bfrom\s*['"]([^'"]+)['"]/g,
    /\bimport\s*['"]([^'"]+)['"]/g,
    /\bimport\s*\(\s*['"]([^'"]+)['"]/g,
    /\brequire\s*\(\s*['"]([^'"]+)['"]/g,
  ]
  for (const re of patterns) for (const m of source.matchAll(re)) out.push(m[1])
  return out
}

export function violations(source: string): string[] {
  const found: string[] = []
  for (const spec of specifiers(source)) {
    if (spec.startsWith('node:') || BUILTINS.has(spec) || BUILTINS.has(spec.split('/')[0]))
      found.push(`imports ${spec}`)
  }
  if (/\beval\s*\(/.test(source)) found.push('uses eval')
  if (/\bnew\s+Function\s*\(/.test(source)) found.push('uses new Function')
  if (/\.innerHTML\b|\.outerHTML\s*=|insertAdjacentHTML/.test(source)) found.push('writes HTML from strings')
  return found
}

describe('src/ uses Web APIs only', () => {
  it('finds the source files', () => expect(files.length).toBeGreaterThan(10))
  for (const file of files) {
    it(file.slice(SRC.length + 1), () => expect(violations(readFileSync(file, 'utf8'))).toEqual([]))
  }
  it('the check itself catches each forbidden form', () => {
    expect(violations(`import { readFile } from 'node:fs'`)).toEqual(['imports node:fs'])
    expect(violations(`import crypto from "crypto"`)).toEqual(['imports crypto'])
    expect(violations(`export * from 'fs/promises'`)).toEqual(['imports fs/promises'])
    expect(violations(`const m = await import('node:buffer')`)).toEqual(['imports node:buffer'])
    expect(violations(`const x = require("path")`)).toEqual(['imports path'])
    expect(violations(`eval('1')`)).toEqual(['uses eval'])
    expect(violations(`const f = new Function('a', 'return a')`)).toEqual(['uses new Function'])
    expect(violations(`el.innerHTML = s`)).toEqual(['writes HTML from strings'])
    expect(violations(`import * as v from 'valibot'`)).toEqual([])
  })
})
