/**
 * `edge-mcp/cloudflare`: what a Worker needs beyond Web APIs — the Durable Object that carries a 2025-era
 * client's answers between isolates (see `legacyQuestions` in the server options).
 * @module
 */
export { DEFAULT_MAILBOX_BINDING, McpQuestionMailbox, durableObjectMailbox, type MailboxNamespace } from './mailbox.ts'
