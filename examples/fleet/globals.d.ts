// The few Deno and Bun globals the recipes use, so that one `tsc` checks every file without their type
// packages (under Deno or Bun the runtime's own types apply).
declare namespace Deno {
  const env: { get(name: string): string | undefined }
  function serve(
    options: { port?: number; hostname?: string },
    handler: (request: Request, info: unknown) => Response | Promise<Response>,
  ): { finished: Promise<void>; shutdown(): Promise<void> }
  function addSignalListener(signal: 'SIGTERM' | 'SIGINT', handler: () => void): void
  function exit(code?: number): never
}
declare namespace Bun {
  function serve(options: {
    port?: number
    hostname?: string
    idleTimeout?: number
    fetch: (request: Request, server: unknown) => Response | Promise<Response>
  }): { port: number; stop(closeActiveConnections?: boolean): Promise<void> }
}
declare module 'bun' {
  /** Bun's Redis client (Bun 1.2.9+). */
  export class RedisClient {
    constructor(url?: string, options?: { maxRetries?: number; autoReconnect?: boolean })
    connect(): Promise<void>
    close(): void
    send(command: string, args: string[]): Promise<unknown>
    duplicate(): Promise<RedisClient>
    incr(key: string): Promise<number>
    get(key: string): Promise<string | null>
  }
}
