#!/usr/bin/env node
/**
 * `npm run conformance`: the official MCP conformance suite (@modelcontextprotocol/conformance, pinned in
 * test/conformance/package.json with the Node 22 it needs) against edge-mcp, for the 2026-07-28
 * requirement set and the 2025-11-25 one (our server on Cloudflare Workers, our client in `'auto'` mode).
 *
 * 1. installs test/conformance's dependencies when they are missing (`npm ci --prefix test/conformance`);
 * 2. starts the fixture server (test/conformance/server.ts, Node 20 + tsx) on a free loopback port and
 *    runs the server suite (`--requirements 2026-07-28`) against it;
 * 3. starts the same fixture as a Worker (test/conformance/worker.ts + wrangler.toml: workerd under
 *    `wrangler dev`, the question mailbox Durable Object bound) on a free loopback port, waits until it
 *    answers, and runs the server suite with `--requirements 2025-11-25` against it: 2025-era clients in a
 *    session, including the scenarios where the server asks them questions (sampling, elicitation); the
 *    Worker's process group is stopped afterwards, and when this script exits early;
 * 4. runs the client suite with test/conformance/client.ts as the client (skipped, saying so, when that
 *    file does not exist), for `--requirements 2026-07-28` and then `--requirements 2025-11-25` (2025-era mock
 *    servers; the fixture client is in `versionNegotiation: 'auto'`, so each scenario starts with a
 *    `server/discover` probe the mock answers with an error or a result naming no 2026 version, and the
 *    client falls back to `initialize`);
 * 5. prints, per suite, a line for its scored scenarios and one for the scenarios it runs without scoring
 *    them (extensions, added after the release, pending), plus one for the tasks extension's server
 *    scenarios (`tasks-*`, run in step 2 but not scored by the suite), and the failing checks; exits 1 when
 *    any check of any scenario failed, scored or not, or a suite could not run.
 *
 * No expected-failures file: every check of every scenario the suite runs must pass. Results (checks.json per scenario) go to a
 * temporary directory (with the Worker's local state), kept (and its path printed) only when something
 * failed.
 */
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { createServer as createNetServer } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const REVISION = '2026-07-28'
/** The requirement set run against the Worker. */
const LEGACY_REVISION = '2025-11-25'
const here = dirname(fileURLToPath(import.meta.url))
const root = resolve(here, '../..')
const node22 = join(here, 'node_modules', '.bin', 'node')
const cli = join(here, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js')
const tsx = join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs')
const clientEntry = join(here, 'client.ts')
const SERVER_START_TIMEOUT_MS = 60_000
const wrangler = join(root, 'node_modules', 'wrangler', 'bin', 'wrangler.js')
const workerConfig = join(here, 'wrangler.toml')
const WORKER_START_TIMEOUT_MS = 90_000

function fail(message) {
  console.error(`conformance: ${message}`)
  process.exit(1)
}

/** Run a command to completion with inherited output; resolves with its exit code. */
function run(command, args, options = {}) {
  return new Promise((resolvePromise) => {
    const child = spawn(command, args, { stdio: 'inherit', ...options })
    child.on('error', (error) => {
      console.error(`conformance: cannot run ${command}: ${error.message}`)
      resolvePromise(1)
    })
    child.on('exit', (code, signal) => resolvePromise(code ?? (signal ? 1 : 0)))
  })
}

/**
 * The scored scenarios of a requirement set, by leg (`server`, `client`), from `conformance list`; and
 * `tasks`: the tasks extension's server scenarios (`tasks-*`), listed there as run but never scored.
 */
function scoredScenarios(revision) {
  const listed = spawnSync(node22, [cli, 'list', '--requirements', revision], { encoding: 'utf8' })
  if (listed.status !== 0) fail(`\`conformance list --requirements ${revision}\` failed:\n${listed.stderr}`)
  const legs = { server: [], client: [], tasks: [] }
  let leg
  for (const line of listed.stdout.split('\n')) {
    if (/^Server scenarios/.test(line)) leg = 'server'
    else if (/^Client scenarios/.test(line)) leg = 'client'
    else if (!/^\s/.test(line)) leg = undefined
    const item = /^ {2}- (\S+)$/.exec(line)
    if (leg && item) legs[leg].push(item[1])
    const task = /^ {4}- (tasks-\S+) \[server\]$/.exec(line)
    if (task) legs.tasks.push(task[1])
  }
  for (const leg of ['server', 'client'])
    if (legs[leg].length === 0) fail(`no ${leg} scenarios found in \`conformance list --requirements ${revision}\``)
  return legs
}

/**
 * checks.json of every scenario run into `dir`, by scenario: the CLI writes
 * `server-<scenario>-<timestamp>/checks.json` for servers and `<scenario>-<timestamp>/checks.json` for clients.
 */
function readChecks(dir, leg) {
  const prefix = leg === 'server' ? 'server-' : ''
  const byScenario = new Map()
  if (!existsSync(dir)) return byScenario
  for (const file of readdirSync(dir, { recursive: true })) {
    const path = String(file).split('\\').join('/')
    const m = new RegExp(`^${prefix}(.+)-\\d{4}-\\d{2}-\\d{2}T[\\d-]+Z/checks\\.json$`).exec(path)
    if (m) byScenario.set(m[1], JSON.parse(readFileSync(join(dir, path), 'utf8')))
  }
  return byScenario
}

/** Tally the checks of `scenarios` from `results` into `count`, and their failures and warnings into `problems`. */
function tally(scenarios, results, count, problems) {
  for (const scenario of scenarios) {
    const checks = results.get(scenario)
    if (!checks) {
      count.FAILURE++
      problems.push(`  ✗ ${scenario}: no results (the scenario did not run)`)
      continue
    }
    for (const check of checks) {
      if (check.status in count) count[check.status]++
      if (check.status === 'FAILURE' || check.status === 'WARNING') {
        problems.push(
          `  ${check.status === 'FAILURE' ? '✗' : '!'} ${scenario} [${check.id}] ${check.errorMessage ?? check.description}`,
        )
      }
    }
  }
}

const counts = (count) =>
  `${count.SUCCESS} checks passed, ${count.FAILURE} failed, ${count.WARNING} warnings, ${count.SKIPPED} skipped`

/**
 * Print the summary lines and the failing checks of one suite; returns the number of failed checks. Scored
 * scenarios (the requirement set's) and the others the suite ran (extensions, added after the release,
 * pending) are tallied on lines of their own, and every failure of either counts.
 * `label` names the run in the summary line: `requirements <revision>`, and where it ran when not the Node fixture.
 * `options.elsewhere`: scenarios of this run summarized on a line of their own (left out of the not-scored
 * tally); `options.unscored: false` leaves the not-scored line out (a line of unscored scenarios).
 */
function summarize(leg, scenarios, dir, exitCode, label = `requirements ${REVISION}`, options = {}) {
  const results = readChecks(dir, leg)
  const count = { SUCCESS: 0, FAILURE: 0, WARNING: 0, SKIPPED: 0 }
  const problems = []
  tally(scenarios, results, count, problems)
  console.log(`conformance ${leg} suite (${label}): ${scenarios.length} scenarios, ${counts(count)}`)
  let failed = count.FAILURE
  if (options.unscored !== false) {
    const elsewhere = options.elsewhere ?? []
    const unscored = [...results.keys()].filter((s) => !scenarios.includes(s) && !elsewhere.includes(s))
    const more = { SUCCESS: 0, FAILURE: 0, WARNING: 0, SKIPPED: 0 }
    tally(unscored, results, more, problems)
    console.log(`  not scored by the suite: ${unscored.length} scenarios, ${counts(more)}`)
    failed += more.FAILURE
  }
  for (const line of problems) console.log(line)
  if (exitCode !== 0 && failed === 0) {
    console.log(`  ✗ the conformance CLI exited with ${exitCode}`)
    return 1
  }
  return failed
}

/** Start the fixture server on a free loopback port; resolves with its URL and process. */
function startFixture() {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [tsx, join(here, 'server.ts'), '0'], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    const timer = setTimeout(() => {
      child.kill()
      reject(new Error(`the fixture server did not start within ${SERVER_START_TIMEOUT_MS} ms`))
    }, SERVER_START_TIMEOUT_MS)
    let out = ''
    child.stdout.setEncoding('utf8')
    child.stdout.on('data', (chunk) => {
      out += chunk
      const m = /listening (http:\/\/\S+)/.exec(out)
      if (m) {
        clearTimeout(timer)
        child.stdout.resume()
        resolvePromise({ url: m[1], child })
      }
    })
    child.on('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`the fixture server exited with ${code} before listening`))
    })
  })
}

/** A free TCP port on loopback (closed again before it is returned). */
function freePort() {
  return new Promise((resolvePromise, reject) => {
    const probe = createNetServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address()
      probe.close(() => resolvePromise(port))
    })
  })
}

/** True once the Worker answers a 2026-07-28 `server/discover` with 200. */
async function answers(url) {
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        'mcp-protocol-version': REVISION,
        'mcp-method': 'server/discover',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'server/discover',
        params: {
          _meta: {
            'io.modelcontextprotocol/protocolVersion': REVISION,
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      }),
      signal: AbortSignal.timeout(5000),
    })
    await res.arrayBuffer()
    return res.ok
  } catch {
    return false // not listening yet
  }
}

/**
 * Start the fixture Worker under `wrangler dev` (local workerd) on a free loopback port, in its own process
 * group (wrangler → workerd, esbuild), with its local state under `stateDir`; resolves once it answers.
 * @returns `{ url, output, stop }`: `output()` is what wrangler printed so far, `stop()` ends the group
 *   (SIGTERM, then SIGKILL after 5 s). The group is also killed when this script exits.
 * @throws Error (with wrangler's output) when it exits or does not answer within WORKER_START_TIMEOUT_MS.
 */
async function startWorker(stateDir) {
  const port = await freePort()
  const args = [wrangler, 'dev', '--config', workerConfig, '--ip', '127.0.0.1', '--port', String(port)]
  args.push('--inspector-port', '0', '--log-level', 'warn', '--persist-to', stateDir)
  const child = spawn(process.execPath, args, {
    cwd: root,
    detached: true, // its own process group: stopping it stops workerd too
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      CI: 'true',
      NO_COLOR: '1',
      WRANGLER_SEND_METRICS: 'false',
      WRANGLER_SEND_ERROR_REPORTS: 'false',
      CLOUDFLARE_CF_FETCH_ENABLED: 'false',
    },
  })
  let log = ''
  child.stdout.on('data', (d) => (log += d))
  child.stderr.on('data', (d) => (log += d))
  const killGroup = (signal) => {
    try {
      process.kill(-child.pid, signal)
    } catch {
      // already gone
    }
  }
  const onExit = () => killGroup('SIGKILL')
  process.on('exit', onExit)
  const exited = new Promise((resolvePromise) => child.once('exit', resolvePromise))
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      killGroup('SIGTERM')
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))])
    }
    killGroup('SIGKILL') // workerd may outlive wrangler
    process.off('exit', onExit)
  }
  const url = `http://127.0.0.1:${port}/mcp`
  const deadline = Date.now() + WORKER_START_TIMEOUT_MS
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) break
    if (await answers(url)) return { url, output: () => log, stop }
    await new Promise((r) => setTimeout(r, 250))
  }
  await stop()
  throw new Error(
    child.exitCode !== null
      ? `wrangler dev exited with ${child.exitCode} before the Worker answered:\n${log}`
      : `the fixture Worker did not answer within ${WORKER_START_TIMEOUT_MS} ms:\n${log}`,
  )
}

// 1. dependencies (Node 22 and the suite) live in test/conformance, apart from the root package
if (!existsSync(node22) || !existsSync(cli)) {
  console.log('conformance: installing test/conformance dependencies (npm ci --prefix test/conformance)')
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'
  const code = await run(npm, ['ci', '--prefix', here, '--no-audit', '--no-fund'], { cwd: root })
  if (code !== 0 || !existsSync(node22) || !existsSync(cli)) fail('npm ci --prefix test/conformance failed')
}
const version = spawnSync(node22, ['--version'], { encoding: 'utf8' }).stdout.trim()
if (!version.startsWith('v22.'))
  fail(`test/conformance/node_modules/.bin/node is ${version || 'missing'}, expected Node 22`)
const scored = scoredScenarios(REVISION)
if (scored.tasks.length === 0)
  fail(`no tasks-* server scenarios found in \`conformance list --requirements ${REVISION}\``)
const scoredLegacy = scoredScenarios(LEGACY_REVISION)
const results = mkdtempSync(join(tmpdir(), 'edge-mcp-conformance-'))
console.log(`conformance: @modelcontextprotocol/conformance on Node ${version}`)
// a detached Worker group must not outlive an interrupted run: exit, so the 'exit' hooks kill it
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => process.exit(1))

// 2. the server suite against the fixture server
let fixture
try {
  fixture = await startFixture()
} catch (error) {
  fail(error.message)
}
console.log(`conformance: fixture server at ${fixture.url}`)
const serverDir = join(results, 'server')
const serverCode = await run(
  node22,
  [cli, 'server', '--url', fixture.url, '--requirements', REVISION, '-o', serverDir],
  { cwd: results },
)
fixture.child.kill()

// 3. the 2025-11-25 server suite against the fixture Worker (workerd, the mailbox Durable Object bound)
const legacyDir = join(results, 'server-2025')
let legacyCode = 1
let worker
try {
  worker = await startWorker(join(results, 'workerd-state'))
} catch (error) {
  console.error(`conformance: ${error.message}`)
}
if (worker) {
  console.log(`conformance: fixture Worker (wrangler dev) at ${worker.url}`)
  try {
    legacyCode = await run(
      node22,
      [cli, 'server', '--url', worker.url, '--requirements', LEGACY_REVISION, '-o', legacyDir],
      { cwd: results },
    )
  } finally {
    await worker.stop()
  }
}

// 4. the client suites (2026-07-28, then 2025-11-25), with our client
let clientCode
let legacyClientCode
const clientDir = join(results, 'client')
const legacyClientDir = join(results, 'client-2025')
if (existsSync(clientEntry)) {
  const command = `${process.execPath} ${tsx} ${clientEntry}`
  if (/\s/.test(process.execPath + tsx + clientEntry))
    fail('the conformance CLI splits --command on spaces; run from a path without spaces')
  const clientSuite = (revision, dir) =>
    run(node22, [cli, 'client', '--requirements', revision, '--command', command, '-o', dir], { cwd: results })
  clientCode = await clientSuite(REVISION, clientDir)
  legacyClientCode = await clientSuite(LEGACY_REVISION, legacyClientDir)
}

// 5. summary lines and the exit code
console.log('')
let failed = summarize('server', scored.server, serverDir, serverCode, undefined, { elsewhere: scored.tasks })
// the tasks extension's scenarios ran with the server suite; not scored by the suite, but every check counts here
const tasksLabel = `requirements ${REVISION}, tasks extension`
failed += summarize('server', scored.tasks, serverDir, 0, tasksLabel, { unscored: false })
const legacyLabel = `requirements ${LEGACY_REVISION}, workerd`
const legacyFailed = summarize('server', scoredLegacy.server, legacyDir, legacyCode, legacyLabel)
if (legacyFailed > 0 && worker) {
  console.log('  wrangler dev printed (last 40 lines):')
  for (const line of worker.output().trimEnd().split('\n').slice(-40)) console.log(`    ${line}`)
}
failed += legacyFailed
if (clientCode === undefined) {
  for (const revision of [REVISION, LEGACY_REVISION])
    console.log(
      `conformance client suite (requirements ${revision}): SKIPPED: test/conformance/client.ts does not exist yet`,
    )
} else {
  failed += summarize('client', scored.client, clientDir, clientCode)
  const legacyClientLabel = `requirements ${LEGACY_REVISION}, versionNegotiation 'auto'`
  failed += summarize('client', scoredLegacy.client, legacyClientDir, legacyClientCode, legacyClientLabel)
}
if (failed > 0) {
  console.log(`conformance: results kept in ${results}`)
  process.exit(1)
}
rmSync(results, { recursive: true, force: true })
