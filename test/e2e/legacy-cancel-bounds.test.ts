/**
 * What a 2025-era client's `notifications/cancelled` can make the server hold (robustness case R15): a
 * cancellation of a request the server does not know is ignored where the server can know (its mailbox
 * in this process's memory), and kept only a while, under a fixed-size key, where the request may run
 * on another instance (a shared mailbox, the Durable Object); every byte kept counts against a cap,
 * keys included, and one session's cancellations never evict another's.
 *
 * Retained memory is measured in a child process run with `--expose-gc`
 * (test/legacy-cancel-memory-child.ts): `heapUsed` and `arrayBuffers` after a forced GC, before and
 * after the notifications.
 */
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import * as v from 'valibot'
import { describe, expect, it } from 'vitest'
import { McpQuestionMailbox, durableObjectMailbox, type MailboxNamespace } from '../../src/cloudflare/index.ts'
import {
  InMemoryQuestionMailbox,
  McpServer,
  RequestStateSecurity,
  createFetchHandler,
  elicit,
  formSchema,
  resolver,
  type QuestionMailbox,
} from '../../src/server/index.ts'
import { answer, initializeLegacy, legacyPost, sseReader, type Message } from '../legacy-wire.ts'

const ROOT = join(import.meta.dirname, '../..')
const MiB = 1024 * 1024

interface Measured {
  before: { heapUsed: number; arrayBuffers: number }
  after: { heapUsed: number; arrayBuffers: number }
  statuses: number[]
  objects?: number
}

/** Run the child: `count` cancellations of distinct `idChars`-character ids sent `where`; what it measured. */
function measure(where: 'http' | 'hop' | 'durable' | 'stdio', count: number, idChars = 3 * MiB): Promise<Measured> {
  const child = spawn(
    process.execPath,
    [
      '--expose-gc',
      '--import',
      'tsx',
      join(ROOT, 'test/legacy-cancel-memory-child.ts'),
      where,
      `${count}`,
      `${idChars}`,
    ],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  )
  let out = ''
  let err = ''
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()))
  return new Promise((resolve, reject) => {
    child.on('error', reject)
    child.on('exit', (code) => {
      if (code === 0) resolve(JSON.parse(out) as Measured)
      else reject(new Error(`the child exited with ${code}: ${err}`))
    })
  })
}

/** What stayed on the heap and in ArrayBuffers, in MiB. */
const retained = (m: Measured) => ({
  heap: (m.after.heapUsed - m.before.heapUsed) / MiB,
  arrayBuffers: (m.after.arrayBuffers - m.before.arrayBuffers) / MiB,
})

// shared/cases/robustness.md R15
describe('200 cancellations of distinct ~3 MiB request ids in a 2025-11-25 session', () => {
  it('over HTTP (default mailbox): every one 202, and memory after a forced GC stays flat', async () => {
    const m = await measure('http', 200)
    expect(m.statuses).toEqual([202])
    const { heap, arrayBuffers } = retained(m)
    expect(heap).toBeLessThan(4) // 600 MiB when each id was kept in an early-answer key
    expect(arrayBuffers).toBeLessThan(4)
  }, 90_000)

  // 24 suffice: 72 MiB kept before (144 MiB through the Durable Object), flat after
  for (const [where, what] of [
    ['hop', 'a shared mailbox behind an async hop (the request may run on another instance: kept a while)'],
    ['durable', 'the Durable Object mailbox (one object per key: each keeps a fixed-size key)'],
    ['stdio', 'stdio, where the notifications reach the same server'],
  ] as const)
    it(`through ${what}: memory stays flat`, async () => {
      const m = await measure(where, 24)
      const { heap, arrayBuffers } = retained(m)
      expect(heap).toBeLessThan(4)
      expect(arrayBuffers).toBeLessThan(4)
      if (where === 'durable') expect(m.objects).toBe(24)
    }, 60_000)
})

const KEY = 'k'.repeat(32)
const askName = resolver({}, function askName() {
  return elicit('What is your name?', formSchema({ name: v.string() }))
})

/** A server whose `greet` asks the client's name (a question to a 2025 client), over `mailbox`. */
function greeter(mailbox?: QuestionMailbox) {
  const ran: string[] = []
  const mcp = new McpServer(
    { name: 'asker', version: '1' },
    {
      requestStateSecurity: new RequestStateSecurity({ keys: [KEY] }),
      ...(mailbox ? { legacyQuestions: { mailbox } } : {}),
    },
  )
  mcp.tool('greet', { description: 'asks a name', use: { who: askName } }, ({ who }) => {
    ran.push(who.name)
    return `Hello, ${who.name}!`
  })
  return { handler: createFetchHandler(mcp), ran }
}

const cancelOf = (requestId: unknown) => ({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId } })
const greet = (id: string | number) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'greet', arguments: {} },
})
const toolText = (m: Message) => (m.result as { content: { text: string }[] }).content[0].text

/** A namespace of `McpQuestionMailbox` objects in this process, made on first use, as Cloudflare does. */
function objectNamespace(): MailboxNamespace & { objects: Map<unknown, McpQuestionMailbox> } {
  const objects = new Map<unknown, McpQuestionMailbox>()
  return {
    objects,
    idFromName: (name) => name,
    get: (id: unknown) => {
      let object = objects.get(id)
      if (!object) objects.set(id, (object = new McpQuestionMailbox()))
      return { fetch: (input, init) => object.fetch(new Request(input, init)) }
    },
  }
}

describe('a cancellation of a request the server does not know', () => {
  it('is ignored with the in-memory mailbox: a request sent after it under that id runs', async () => {
    const { handler, ran } = greeter()
    const session = await initializeLegacy(handler, { elicitation: {} })
    expect((await legacyPost(handler, cancelOf('r1'), session)).status).toBe(202)
    const stream = sseReader(await legacyPost(handler, greet('r1'), session))
    const q = await stream.next()
    expect(q.method).toBe('elicitation/create')
    await legacyPost(handler, answer(q.id, { action: 'accept', content: { name: 'Ada' } }), session)
    expect(toolText(await stream.next())).toBe('Hello, Ada!')
    expect(ran).toEqual(['Ada'])
  })

  it('is kept a while on the Durable Object mailbox (it may race its request from another isolate), and 1,024 cancellations of another session do not evict it', async () => {
    const namespace = objectNamespace()
    const { handler, ran } = greeter(durableObjectMailbox(namespace)({}))
    const victim = await initializeLegacy(handler, { elicitation: {} })
    const flooder = await initializeLegacy(handler, { elicitation: {} })
    expect((await legacyPost(handler, cancelOf('r2'), victim)).status).toBe(202)
    for (let i = 0; i < 1024; i++) await legacyPost(handler, cancelOf(`f${i}`), flooder)
    // the cancellation reaches the request once it waits on its question: no response (spec: cancellation.mdx)
    const res = await legacyPost(handler, greet('r2'), victim)
    expect(res.status).toBe(200)
    const body = await res.text()
    expect(body).not.toMatch(/"(result|error)"/)
    expect(ran).toEqual([])
    // control: a request of the session that nobody cancelled asks its question
    const control = sseReader(await legacyPost(handler, greet('r3'), victim))
    expect((await control.next()).method).toBe('elicitation/create')
    await control.cancel()
    // each key its own object, holding a fixed-size key: 1 + 1,024 cancellations, and the question's
    expect([...namespace.objects.keys()].every((key) => typeof key === 'string' && key.length <= 30)).toBe(true)
  })

  it('is never kept under a key longer than the digest (request ids of any length)', async () => {
    const namespace = objectNamespace()
    const { handler } = greeter(durableObjectMailbox(namespace)({}))
    const session = await initializeLegacy(handler, { elicitation: {} })
    for (const id of ['x'.repeat(100_000), 7, '7'])
      expect((await legacyPost(handler, cancelOf(id), session)).status).toBe(202)
    const keys = [...namespace.objects.keys()] as string[]
    expect(keys).toHaveLength(3) // the number 7 and the string "7" are two requests
    for (const key of keys) expect(key).toMatch(/^request:[\w-]{22}$/)
  })
})

describe('the in-memory mailbox counts keys against maxEarlyAnswerBytes', () => {
  it('an early answer whose key and answer exceed the cap is never kept; the oldest go to make room for one that fits', async () => {
    const mailbox = new InMemoryQuestionMailbox({ maxEarlyAnswerBytes: 100 })
    const small = { result: {} } // 11 characters of JSON
    await mailbox.deliver('k'.repeat(95), small)
    await expect(mailbox.wait('k'.repeat(95), 20)).rejects.toThrow('no answer')
    await mailbox.deliver('a'.repeat(40), small)
    await mailbox.deliver('b'.repeat(40), small) // 51 + 51 > 100: a is dropped
    await expect(mailbox.wait('a'.repeat(40), 20)).rejects.toThrow('no answer')
    await expect(mailbox.wait('b'.repeat(40), 20)).resolves.toEqual(small)
  })

  it('offer hands an answer to a wait there now, and keeps nothing for a wait to come', async () => {
    const mailbox = new InMemoryQuestionMailbox()
    expect(mailbox.offer('q', { result: { n: 1 } })).toBe(false)
    await expect(mailbox.wait('q', 20)).rejects.toThrow('no answer')
    const waited = mailbox.wait('q', 1000)
    expect(mailbox.offer('q', { result: { n: 2 } })).toBe(true)
    await expect(waited).resolves.toEqual({ result: { n: 2 } })
  })
})

describe('the Durable Object of the mailbox', () => {
  it('refuses a key longer than 256 characters (400), and serves one of 256', async () => {
    const object = new McpQuestionMailbox()
    const deliver = (qid: string) =>
      object.fetch(
        new Request('https://mailbox.edge-mcp.internal/deliver', {
          method: 'POST',
          body: JSON.stringify({ qid, answer: { result: {} } }),
        }),
      )
    expect((await deliver('k'.repeat(257))).status).toBe(400)
    expect((await deliver('k'.repeat(256))).status).toBe(202)
  })
})
