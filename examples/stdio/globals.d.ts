// The few Deno and Bun APIs the stdio recipes use, so that one `tsc` checks every file without their type
// packages (under Deno or Bun the runtime's own types apply).
declare namespace Deno {
  const stdin: { readonly readable: ReadableStream<Uint8Array> }
  const stdout: { readonly writable: WritableStream<Uint8Array> }
  function execPath(): string
  class Command {
    constructor(
      command: string,
      options: { args?: string[]; cwd?: string; stdin?: 'piped'; stdout?: 'piped'; stderr?: 'inherit' | 'piped' },
    )
    spawn(): ChildProcess
  }
  interface ChildProcess {
    readonly stdin: WritableStream<Uint8Array>
    readonly stdout: ReadableStream<Uint8Array>
    readonly status: Promise<{ success: boolean; code: number; signal: string | null }>
    kill(signal?: 'SIGTERM' | 'SIGKILL'): void
  }
}
declare namespace Bun {
  function spawn(
    command: string[],
    options: { cwd?: string; stdin: 'pipe'; stdout: 'pipe'; stderr?: 'inherit' | 'pipe' },
  ): Subprocess
  interface Subprocess {
    readonly stdin: FileSink
    readonly stdout: ReadableStream<Uint8Array>
    readonly exited: Promise<number>
    readonly signalCode: string | null
    kill(signal?: 'SIGTERM' | 'SIGKILL'): void
  }
  interface FileSink {
    write(chunk: Uint8Array): number
    flush(): number | Promise<number>
    end(): number | Promise<number>
  }
}
