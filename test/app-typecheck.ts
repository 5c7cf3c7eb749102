/**
 * Type-check a test app (a folder with its own tsconfig.json, e.g. under test-results/) the way its user's
 * `tsc --noEmit` would: for the recipe tests, which check that documented files compile against the
 * published declarations.
 */
import ts from 'typescript'

/**
 * @returns the root files of the app's tsconfig.json (relative to `app`), the program, and its
 *   diagnostics formatted as tsc prints them ('' when there are none).
 * @throws Error when tsconfig.json cannot be read.
 */
export function typecheckApp(app: string): { files: string[]; program: ts.Program; diagnostics: string } {
  const config = ts.readConfigFile(`${app}/tsconfig.json`, (f) => ts.sys.readFile(f))
  if (config.error) throw new Error(ts.flattenDiagnosticMessageText(config.error.messageText, '\n'))
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, app)
  const program = ts.createProgram(parsed.fileNames, parsed.options)
  const diagnostics = ts.formatDiagnostics(ts.getPreEmitDiagnostics(program), {
    getCanonicalFileName: (f) => f,
    getCurrentDirectory: () => app,
    getNewLine: () => '\n',
  })
  return { files: parsed.fileNames.map((f) => f.slice(app.length + 1)), program, diagnostics }
}
