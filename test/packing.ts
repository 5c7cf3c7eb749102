/**
 * The package as a user gets it, for the tests that install it into fresh apps: `npm pack` of a copy of
 * the repository, and a nested npm that behaves as a user's (no variables of an enclosing `npm test`).
 *
 * @example
 * const { tarball } = await packTarball(work) // work: a temporary folder, removed by the caller
 * await npm(['install', tarball, 'zod@4.6.7', ...OFFLINE], app)
 */
import { execFile } from 'node:child_process'
import { cpSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs'
import { join, relative } from 'node:path'
import { promisify } from 'node:util'
import { ROOT } from './workerd.ts'

const run = promisify(execFile)

/** The repository's package.json, as far as these tests read it. */
export interface Manifest {
  name: string
  dependencies?: Record<string, string>
  devDependencies: Record<string, string>
  peerDependencies?: Record<string, string>
  peerDependenciesMeta?: Record<string, { optional?: boolean }>
  repository: { url: string }
}
export const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Manifest

/** `npm install` flags of the tests: the npm cache first, no audit or funding requests. */
export const OFFLINE = ['--prefer-offline', '--no-audit', '--no-fund']

/** The environment for a nested npm: without the variables of an enclosing `npm test` (its package and lifecycle). */
export function npmEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_UPDATE_NOTIFIER: '1' }
  for (const key of Object.keys(env)) {
    if (/^npm_(lifecycle_|package_|command$|config_local_prefix$)|^INIT_CWD$/i.test(key)) delete env[key]
  }
  return env
}

/** Runs npm in `cwd` (120 s at most); rejects with npm's stdout and stderr when it exits non-zero. */
export const npm = (args: string[], cwd: string) =>
  run('npm', args, { cwd, env: npmEnv(), timeout: 120_000, maxBuffer: 16 * 1024 * 1024 })

/**
 * `npm pack` in a copy of the repository under `work`/stage (its prepack builds dist/ and makes the
 * README's links absolute, its postpack restores them; a copy, so the working tree's README.md and dist/
 * are never half-written while other test files read them). Takes ~20 s (the build): call it from a hook
 * with a timeout to match.
 * @returns the tarball's absolute path (in `work`/out), the files it holds, and the stage folder.
 */
export async function packTarball(work: string): Promise<{ tarball: string; files: string[]; stage: string }> {
  const stage = join(work, 'stage')
  // the repository as a fresh clone has it (plus uncommitted files), without what builds and installs make
  const skip = new Set(['node_modules', '.git', 'dist', 'test-results', '.wrangler', '.readme-links-backup.md'])
  cpSync(ROOT, stage, {
    recursive: true,
    filter: (src) =>
      !relative(ROOT, src)
        .split('/')
        .some((part) => skip.has(part)),
  })
  symlinkSync(join(ROOT, 'node_modules'), join(stage, 'node_modules'), 'dir') // tsc for the prepack build
  const out = join(work, 'out')
  mkdirSync(out)
  const { stdout } = await npm(['pack', '--json', '--pack-destination', out], stage)
  const [result] = JSON.parse(stdout.slice(stdout.indexOf('[\n'))) as Array<{
    filename: string
    files: Array<{ path: string }>
  }>
  return { tarball: join(out, result.filename), files: result.files.map((f) => f.path), stage }
}
