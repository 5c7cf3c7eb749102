#!/usr/bin/env node
/**
 * `npm run conformance`: the official MCP conformance suite (@modelcontextprotocol/conformance, pinned in
 * test/conformance/package.json with the Node 22 it needs) against edge-mcp, for the 2026-07-28
 * requirement set.
 *
 * 1. installs test/conformance's dependencies when they are missing (`npm ci --prefix test/conformance`);
 * 2. starts the fixture server (test/conformance/server.ts, Node 20 + tsx) on a free loopback port and
 *    runs the server suite against it;
 * 3. runs the client suite with test/conformance/client.ts as the client (skipped, saying so, when that
 *    file does not exist);
 * 4. prints one summary line per suite (scored scenarios only; the CLI's own output lists the rest) and
 *    the failing checks, and exits 1 when any scored check failed or the suite could not run.
 *
 * No expected-failures file: every scored check must pass. Results (checks.json per scenario) go to a
 * temporary directory, kept (and its path printed) only when something failed.
 */
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const REVISION = '2026-07-28'
const here = dirname(fileURLToPath(import.meta.url))
const root = resolve(here, '../..')
const node22 = join(here, 'node_modules', '.bin', 'node')
const cli = join(here, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js')
const tsx = join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs')
const clientEntry = join(here, 'client.ts')
const SERVER_START_TIMEOUT_MS = 60_000

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

/** The scored scenarios of the requirement set, by leg (`server`, `client`), from `conformance list`. */
function scoredScenarios() {
  const listed = spawnSync(node22, [cli, 'list', '--requirements', REVISION], { encoding: 'utf8' })
  if (listed.status !== 0) fail(`\`conformance list --requirements ${REVISION}\` failed:\n${listed.stderr}`)
  const legs = { server: [], client: [] }
  let leg
  for (const line of listed.stdout.split('\n')) {
    if (/^Server scenarios/.test(line)) leg = 'server'
    else if (/^Client scenarios/.test(line)) leg = 'client'
    else if (!/^\s/.test(line)) leg = undefined
    const item = /^ {2}- (\S+)$/.exec(line)
    if (leg && item) legs[leg].push(item[1])
  }
  if (legs.server.length === 0) fail(`no server scenarios found in \`conformance list --requirements ${REVISION}\``)
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

/** Print the summary line and the failing checks of one suite; returns the number of failed checks. */
function summarize(leg, scenarios, dir, exitCode) {
  const results = readChecks(dir, leg)
  const count = { SUCCESS: 0, FAILURE: 0, WARNING: 0, SKIPPED: 0 }
  const problems = []
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
  const unscored = [...results.entries()].filter(([s]) => !scenarios.includes(s))
  const unscoredFailing = unscored.filter(([, checks]) => checks.some((c) => c.status === 'FAILURE')).length
  console.log(
    `conformance ${leg} suite (requirements ${REVISION}): ${scenarios.length} scenarios, ` +
      `${count.SUCCESS} checks passed, ${count.FAILURE} failed, ${count.WARNING} warnings, ${count.SKIPPED} skipped` +
      ` (not scored: ${unscored.length} scenarios, ${unscoredFailing} failing)`,
  )
  for (const line of problems) console.log(line)
  if (exitCode !== 0 && count.FAILURE === 0) {
    console.log(`  ✗ the conformance CLI exited with ${exitCode}`)
    return 1
  }
  return count.FAILURE
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
const scored = scoredScenarios()
const results = mkdtempSync(join(tmpdir(), 'edge-mcp-conformance-'))
console.log(`conformance: @modelcontextprotocol/conformance on Node ${version}`)

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

// 3. the client suite, with our client
let clientCode
const clientDir = join(results, 'client')
if (existsSync(clientEntry)) {
  const command = `${process.execPath} ${tsx} ${clientEntry}`
  if (/\s/.test(process.execPath + tsx + clientEntry))
    fail('the conformance CLI splits --command on spaces; run from a path without spaces')
  clientCode = await run(node22, [cli, 'client', '--requirements', REVISION, '--command', command, '-o', clientDir], {
    cwd: results,
  })
}

// 4. summary lines and the exit code
console.log('')
let failed = summarize('server', scored.server, serverDir, serverCode)
if (clientCode === undefined) {
  console.log(
    `conformance client suite (requirements ${REVISION}): SKIPPED: test/conformance/client.ts does not exist yet`,
  )
} else {
  failed += summarize('client', scored.client, clientDir, clientCode)
}
if (failed > 0) {
  console.log(`conformance: results kept in ${results}`)
  process.exit(1)
}
rmSync(results, { recursive: true, force: true })
