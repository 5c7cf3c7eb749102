/**
 * RFC 6570 URI templates: expansion against the official uritemplate-test vectors (vendored as data in
 * test/fixtures/uritemplate-test, see its README), matching (round trips and the documented limits), and
 * resources/read routing through McpServer.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { schemaErrors } from '../spec-schema.ts'
import { Client, StreamableHttpClientTransport } from '../../src/client/index.ts'
import { McpError } from '../../src/index.ts'
import { McpServer, createFetchHandler } from '../../src/server/index.ts'
import { MAX_MATCH_LENGTH, type UriTemplateValue } from '../../src/protocol/uri-template.ts'
import { UriTemplate, UriTemplateError } from '../../src/index.ts'
import { call } from '../helpers.ts'

type Suite = Record<
  string,
  { level?: number; variables: Record<string, UriTemplateValue>; testcases: [string, string | string[] | false][] }
>
const vectors = (file: string): Suite =>
  JSON.parse(readFileSync(join(import.meta.dirname, '../fixtures/uritemplate-test', file), 'utf8')) as Suite
const FILES = ['spec-examples.json', 'spec-examples-by-section.json', 'extended-tests.json', 'negative-tests.json']

/** Expand, or the error thrown by parsing or expanding. */
function expand(template: string, variables: Record<string, UriTemplateValue>): string | Error {
  try {
    return new UriTemplate(template).expand(variables)
  } catch (error) {
    return error as Error
  }
}

describe('expand: the uritemplate-test vectors', () => {
  for (const file of FILES) {
    for (const [group, { variables, testcases }] of Object.entries(vectors(file))) {
      it(`${file}: ${group} (${testcases.length} cases)`, () => {
        const wrong = testcases.flatMap(([template, expected]) => {
          const got = expand(template, variables)
          const ok =
            expected === false
              ? got instanceof UriTemplateError
              : Array.isArray(expected)
                ? expected.includes(got as string)
                : got === expected
          return ok ? [] : [{ template, expected, got: got instanceof Error ? got.message : got }]
        })
        expect(wrong).toEqual([])
      })
    }
  }

  it('covers every vector (RFC 6570 sections 1.2, 2 and 3.2, extended and negative cases)', () => {
    const counts = FILES.map((file) => Object.values(vectors(file)).reduce((n, g) => n + g.testcases.length, 0))
    expect(counts).toEqual([64, 117, 53, 36])
  })
})

describe('invalid templates and values', () => {
  it('throw UriTemplateError naming the problem and where it is', () => {
    const cases: [string, string][] = [
      ['x{a', `Invalid URI template "x{a": '{' is never closed at character 1`],
      ['a}', `Invalid URI template "a}": '}' without '{' at character 1`],
      ['a{}', 'Invalid URI template "a{}": empty expression at character 1'],
      ['{=a}', 'Invalid URI template "{=a}": operator \'=\' is reserved for future extensions at character 0'],
      ['x/{a b}', 'Invalid URI template "x/{a b}": invalid variable "a b" in {a b} at character 2'],
      ['{?a,}', 'Invalid URI template "{?a,}": invalid variable "" in {?a,} at character 0'],
      ['{a:0}', 'Invalid URI template "{a:0}": invalid variable "a:0" in {a:0} at character 0'],
      ['{a:10000}', 'Invalid URI template "{a:10000}": invalid variable "a:10000" in {a:10000} at character 0'],
      ['{a:2*}', 'Invalid URI template "{a:2*}": invalid variable "a:2*" in {a:2*} at character 0'],
      ['a b/{x}', 'Invalid URI template "a b/{x}": " " is not allowed in a literal at character 1'],
      ['a<{x}', 'Invalid URI template "a<{x}": "<" is not allowed in a literal at character 1'],
      ['50%/{x}', `Invalid URI template "50%/{x}": '%' not followed by two hex digits at character 2`],
    ]
    for (const [template, message] of cases)
      expect(() => new UriTemplate(template), template).toThrow(new UriTemplateError(message))
  })

  it('a prefix of a list, or a member that is not a scalar, fails to expand', () => {
    expect(() => new UriTemplate('{list:2}').expand({ list: ['a'] })).toThrow(
      new UriTemplateError(
        'Cannot expand {list:2}: a prefix modifier does not apply to a list or associative array (RFC 6570 section 2.4.1)',
      ),
    )
    expect(() => new UriTemplate('{list}').expand({ list: [{}] as never })).toThrow(
      /'list': its members must be strings, numbers or booleans/,
    )
    // the same template expands a string, and skips undefined members
    expect(new UriTemplate('{list:2}').expand({ list: 'abc' })).toBe('ab')
    expect(new UriTemplate('{?list}').expand({ list: ['a', null, 'b'] })).toBe('?list=a,b')
  })

  it('exposes what it parsed', () => {
    const t = new UriTemplate('x{+path}{/seg*,id}{?q,lang:2}{&q}')
    expect(t.variables).toEqual(['path', 'seg', 'id', 'q', 'lang'])
    expect(t.expressions.map((e) => e.operator)).toEqual(['+', '/', '?', '&'])
    expect(t.expressions[2].varspecs).toEqual([
      { name: 'q', explode: false, prefix: undefined },
      { name: 'lang', explode: false, prefix: 2 },
    ])
    expect(String(t)).toBe('x{+path}{/seg*,id}{?q,lang:2}{&q}')
  })
})

/** What match should give back for these variables: lists joined unless exploded, prefixes applied, undefined left out. */
function roundTripped(
  t: UriTemplate,
  variables: Record<string, UriTemplateValue>,
): Record<string, string | string[]> | 'map' {
  const out: Record<string, string | string[]> = {}
  for (const name of t.variables) {
    for (const spec of t.expressions.flatMap((e) => e.varspecs).filter((s) => s.name === name)) {
      const value = variables[name]
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) return 'map'
      const list = Array.isArray(value) ? value.filter((m) => m != null).map(String) : undefined
      if (spec.explode) out[name] = list ?? (value == null ? [] : [String(value)])
      else if (value != null && list?.length !== 0) {
        const text = list ? list.join(',') : String(value)
        const cut = spec.prefix === undefined ? text : [...text].slice(0, spec.prefix).join('')
        if (!(name in out) || cut.length > (out[name] as string).length) out[name] = cut
      }
    }
  }
  return out
}

describe('match', () => {
  // Vectors whose expansion cannot be read back, each by a documented rule.
  const LIMITS: Record<string, unknown> = {
    'O{empty}X': undefined, // {x} needs one character at least
    'O{undef}X': undefined,
    'O{+empty}X': undefined,
    'O{+undef}X': undefined,
    '?{undef,y}': { undef: '768' }, // a value that is missing is read as the first one
    'up{+path}{var}/here': { path: '/foo/barvalu', var: 'e' }, // {a}{b}: nothing tells them apart
    '{+id}': { id: 'admin/' }, // values are percent-decoded, also those that held %XX themselves
    '{#id}': { id: 'admin/' },
    '{+list}': { list: 'red%,/green,blue ' },
    '{#list}': { list: 'red%,/green,blue ' },
  }

  it('reads back every vector expansion without an associative array, except the documented limits', () => {
    let checked = 0
    const limits: Record<string, unknown> = {}
    for (const file of FILES.slice(0, 3)) {
      for (const { variables, testcases } of Object.values(vectors(file))) {
        for (const [template] of testcases) {
          const t = new UriTemplate(template)
          const expected = roundTripped(t, variables)
          if (expected === 'map') continue
          const got = t.match(t.expand(variables))
          if (Object.hasOwn(LIMITS, template)) limits[template] = got
          else expect(got, template).toEqual(expected)
          checked++
        }
      }
    }
    expect(limits).toEqual(LIMITS)
    expect(checked).toBe(191)
  })

  it('{+path}: spans "/", stops at the query, needs one character, decodes', () => {
    const t = new UriTemplate('file:///{+path}')
    expect(t.match('file:///src/a%20b/c.ts')).toEqual({ path: 'src/a b/c.ts' })
    expect(t.match('file:///src/caf%C3%A9;v=1,2')).toEqual({ path: 'src/café;v=1,2' })
    expect(t.match('file:///')).toBeUndefined()
    expect(t.match('file:///a?b')).toBeUndefined()
    expect(t.match('file:///a#b')).toBeUndefined()
    expect(t.match('file:///%E0%A4%A')).toBeUndefined() // a malformed escape
    expect(t.match('file:///%C3%28')).toBeUndefined() // not UTF-8
    expect(t.match('http:///a')).toBeUndefined()
    expect(new UriTemplate('{+path}/here').match('/a/b/here/here')).toEqual({ path: '/a/b/here' })
  })

  it('{/segments*}: a list of segments, [] when there is none', () => {
    const t = new UriTemplate('docs://site{/segments*}')
    expect(t.match('docs://site/a/b%2Fc/d')).toEqual({ segments: ['a', 'b/c', 'd'] })
    expect(t.match('docs://site')).toEqual({ segments: [] })
    expect(t.match('docs://site/')).toEqual({ segments: [''] })
    expect(new UriTemplate('git://{repo}{/path*}/raw').match('git://edge/src/a.ts/raw')).toEqual({
      repo: 'edge',
      path: ['src', 'a.ts'],
    })
    expect(new UriTemplate('{/a,b*,c}').match('/1/2/3/4')).toEqual({ a: '1', b: ['2', '3'], c: '4' })
    expect(new UriTemplate('{/a,b}').match('/1/2/3')).toBeUndefined() // more values than variables
    expect(new UriTemplate('{/a,b}').match('/1')).toEqual({ a: '1' })
  })

  it('{?q,lang}: by name, in any order; unknown or repeated names match nothing', () => {
    const t = new UriTemplate('search://books{?q,lang}')
    expect(t.match('search://books?q=dune%20messiah&lang=en')).toEqual({ q: 'dune messiah', lang: 'en' })
    expect(t.match('search://books?lang=en&q=x')).toEqual({ lang: 'en', q: 'x' })
    expect(t.match('search://books?lang=en')).toEqual({ lang: 'en' })
    expect(t.match('search://books?q')).toEqual({ q: '' })
    expect(t.match('search://books')).toEqual({})
    expect(t.match('search://books?page=2')).toBeUndefined()
    expect(t.match('search://books?q=a&q=b')).toBeUndefined()
    expect(t.match('search://books?q=a&lang=en&page=2')).toBeUndefined()
    expect(t.match('search://books?q=a=b')).toBeUndefined() // a value never holds '='
    expect(new UriTemplate('{?tag*}{&page}').match('?tag=a&page=2&tag=b')).toBeUndefined() // {&page} comes after
    expect(new UriTemplate('{?tag*}{&page}').match('?tag=a&tag=b&page=2')).toEqual({ tag: ['a', 'b'], page: '2' })
    expect(new UriTemplate('x{;v,w}').match('x;w=2;v')).toEqual({ w: '2', v: '' })
    expect(new UriTemplate('{?q,qq}x').match('?qq=1&q=2x')).toEqual({ qq: '1', q: '2' }) // a name that starts another
  })

  it('values stop at the first character of what follows them; the last {+…}/{#…}/{…*} may span it', () => {
    expect(new UriTemplate('{name}.{ext}').match('archive.tar.gz')).toEqual({ name: 'archive', ext: 'tar.gz' })
    expect(new UriTemplate('{+dir}/{file}.{ext}').match('a/b/c.tar.gz')).toEqual({
      dir: 'a/b',
      file: 'c',
      ext: 'tar.gz',
    })
    expect(new UriTemplate('users://{email}/{id}').match('users://ada@example.com:1/7')).toEqual({
      email: 'ada@example.com:1',
      id: '7',
    })
    expect(new UriTemplate('{a}{/b}{.c}').match('x/y.z')).toEqual({ a: 'x', b: 'y', c: 'z' })
    expect(new UriTemplate('docs://{name}').match('docs://café')).toEqual({ name: 'café' }) // raw non-ASCII (an IRI)
    expect(new UriTemplate('docs://{name}').match('docs://a/b')).toBeUndefined()
    expect(new UriTemplate('{list}').match('a,b')).toEqual({ list: 'a,b' })
    expect(new UriTemplate('caf\u00e9/{x}').match('caf%C3%A9/1')).toEqual({ x: '1' }) // literals match as they expand
  })

  it('prefixes bound the length; a repeated variable must agree', () => {
    const t = new UriTemplate('isbn:{code:3}')
    expect(t.match('isbn:978')).toEqual({ code: '978' })
    expect(t.match('isbn:9780')).toBeUndefined()
    expect(new UriTemplate('{x}/{x}').match('a/a')).toEqual({ x: 'a' })
    expect(new UriTemplate('{x}/{x}').match('a/b')).toBeUndefined()
    expect(new UriTemplate('{/v:1,v}').match('/a/ab')).toEqual({ v: 'ab' })
    expect(new UriTemplate('{/v,v:1}').match('/ab/a')).toEqual({ v: 'ab' })
    expect(new UriTemplate('{/v:1,v}').match('/b/ab')).toBeUndefined()
  })

  it(`stays fast on hostile input, and URIs over ${MAX_MATCH_LENGTH} characters match nothing`, () => {
    const hostile: [string, string][] = [
      ['x{+a}:{b}.json', 'x' + ':'.repeat(MAX_MATCH_LENGTH - 1)],
      ['{+a}/{+b}/{+c}', '/'.repeat(MAX_MATCH_LENGTH - 1) + '?'],
      ['{/a*}/x{/b*}/y', '/x'.repeat(MAX_MATCH_LENGTH / 2)],
      ['{a}{b}{c}.', 'a'.repeat(MAX_MATCH_LENGTH)],
      ['{?a*}{&b*}z', '?a=' + '&a='.repeat(MAX_MATCH_LENGTH / 4 - 1)],
    ]
    const start = performance.now()
    for (const [template, uri] of hostile) expect(new UriTemplate(template).match(uri), template).toBeUndefined()
    expect(performance.now() - start).toBeLessThan(2000)
    const t = new UriTemplate('file:///{+path}')
    expect(t.match('file:///' + 'a'.repeat(MAX_MATCH_LENGTH - 8))).toBeDefined()
    expect(t.match('file:///' + 'a'.repeat(MAX_MATCH_LENGTH - 7))).toBeUndefined()
  })

  it('types the variables of template literals', () => {
    const m = new UriTemplate('repo://{owner}{/seg*}{?q,lang}{#frag}').match('repo://ada/a/b?q=1#f')!
    const owner: string = m.owner
    const seg: string[] = m.seg
    const q: string | undefined = m.q
    // @ts-expect-error -- lang may be absent
    const lang: string = m.lang
    // @ts-expect-error -- no such variable
    void m.nope
    expect({ owner, seg, q, lang, frag: m.frag }).toEqual({
      owner: 'ada',
      seg: ['a', 'b'],
      q: '1',
      lang: undefined,
      frag: 'f',
    })
    const path: string = new UriTemplate('file:///{+path}').match('file:///a/b')!.path
    expect(path).toBe('a/b')
  })
})

const clientOf = (mcp: McpServer) =>
  new Client({ transport: new StreamableHttpClientTransport('http://x/mcp', { fetch: createFetchHandler(mcp) }) })

function library(): McpServer {
  const mcp = new McpServer({ name: 'library', version: '1' })
  mcp.resourceTemplate(
    'file',
    new UriTemplate('file:///{+path}'),
    { mimeType: 'text/plain' },
    ({ path }) => `file ${path}`,
  )
  mcp.resourceTemplate(
    'doc',
    new UriTemplate('docs://site{/segments*}'),
    {},
    ({ segments }) => `doc ${JSON.stringify(segments)}`,
  )
  mcp.resourceTemplate(
    'search',
    new UriTemplate('search://books{?q,lang}'),
    { complete: { lang: (value) => ['en', 'de', 'fr'].filter((l) => l.startsWith(value)) } },
    ({ q, lang }) => ({
      contents: [
        {
          uri: `search://books?q=${q ?? ''}`,
          mimeType: 'application/json',
          text: JSON.stringify({ q: q ?? null, lang: lang ?? 'en' }),
        },
      ],
    }),
  )
  return mcp
}

describe('resources/read through McpServer', () => {
  it('routes {+path}, {/segments*} and {?q,lang} templates and hands the handler decoded variables', async () => {
    const client = clientOf(library())
    expect((await client.listResourceTemplates()).map((t) => t.uriTemplate)).toEqual([
      'file:///{+path}',
      'docs://site{/segments*}',
      'search://books{?q,lang}',
    ])
    expect((await client.readResource('file:///src/my%20notes.md')).contents).toEqual([
      { uri: 'file:///src/my%20notes.md', mimeType: 'text/plain', text: 'file src/my notes.md' },
    ])
    expect((await client.readResource('docs://site/guide/intro')).contents[0]).toMatchObject({
      text: 'doc ["guide","intro"]',
    })
    expect((await client.readResource('docs://site')).contents[0]).toMatchObject({ text: 'doc []' })
    expect(
      JSON.parse((await client.readResource('search://books?lang=de&q=D%C3%BCne')).contents[0].text as string),
    ).toEqual({ q: 'Düne', lang: 'de' })
    expect(JSON.parse((await client.readResource('search://books')).contents[0].text as string)).toEqual({
      q: null,
      lang: 'en',
    })
    expect(
      await client.complete({ type: 'ref/resource', uri: 'search://books{?q,lang}' }, { name: 'lang', value: 'd' }),
    ).toEqual({ values: ['de'], total: 1, hasMore: false })
  })

  it('a URI no template matches is -32602 "Resource not found" with data.uri', async () => {
    const client = clientOf(library())
    for (const uri of [
      'file:///',
      'file:///a?b=1',
      'search://books?page=2',
      'docs://sitemap',
      'nope://x',
      'file:///' + 'a'.repeat(MAX_MATCH_LENGTH),
    ]) {
      const error = (await client.readResource(uri).catch((e: unknown) => e)) as McpError
      expect(error).toBeInstanceOf(McpError)
      expect([error.code, error.message, error.data]).toEqual([-32602, 'Resource not found', { uri }])
    }
  })

  it('what goes on the wire validates against schema.json', async () => {
    const valid = (def: string, value: unknown) =>
      schemaErrors(def, value).length === 0 ? 'valid' : JSON.stringify(value)
    const handler = createFetchHandler(library())
    const list = await call(handler, 'resources/templates/list')
    expect(valid('ListResourceTemplatesResultResponse', list.body)).toBe('valid')
    for (const uri of ['file:///a%20b', 'docs://site/x', 'search://books?q=a']) {
      const read = await call(handler, 'resources/read', { uri })
      expect([read.status, valid('ReadResourceResultResponse', read.body)]).toEqual([200, 'valid'])
    }
    const missing = await call(handler, 'resources/read', { uri: 'nope://x' })
    expect([missing.status, valid('JSONRPCErrorResponse', missing.body), missing.body.error]).toEqual([
      200,
      'valid',
      { code: -32602, message: 'Resource not found', data: { uri: 'nope://x' } },
    ])
  })

  it('checks the template and its completions when you register', () => {
    const mcp = new McpServer({ name: 's', version: '1' })
    expect(() => mcp.resourceTemplate('bad', new UriTemplate('docs://{name'), {}, () => 'x')).toThrow(
      new UriTemplateError(`Invalid URI template "docs://{name": '{' is never closed at character 7`),
    )
    // the template comes parsed: its text alone (a JavaScript caller, older code) is refused, saying what to pass
    // @ts-expect-error -- a string is not a UriTemplate
    expect(() => mcp.resourceTemplate('text', 'docs://{name}', {}, () => 'x')).toThrow(
      new TypeError(
        `Resource template 'text': pass new UriTemplate(…) (from edge-mcp), not the string "docs://{name}"`,
      ),
    )
    // @ts-expect-error -- neither is anything else
    expect(() => mcp.resourceTemplate('none', undefined, {}, () => 'x')).toThrow(
      new TypeError(`Resource template 'none': pass new UriTemplate(…) (from edge-mcp), not undefined`),
    )
    expect(() =>
      // @ts-expect-error -- 'title' is not a variable of the template
      mcp.resourceTemplate('t', new UriTemplate('docs://{/path*}'), { complete: { title: () => [] } }, () => 'x'),
    ).toThrow(new Error("Resource template 't': complete.title names no variable of docs://{/path*}"))
    // the handler's variables follow the template
    mcp.resourceTemplate(
      'typed',
      new UriTemplate('repo://{owner}/{+path}{?ref}'),
      { complete: { owner: () => [], ref: () => [] } },
      ({ owner, path, ref }) => {
        const strings: [string, string, string | undefined] = [owner, path, ref]
        return strings.join()
      },
    )
  })
})
