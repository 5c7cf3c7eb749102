/**
 * The MCP wire schemas: see schemas/index.ts. This path stays for the modules and tests that import it.
 * @module
 */
export * from './schemas/index.ts'
